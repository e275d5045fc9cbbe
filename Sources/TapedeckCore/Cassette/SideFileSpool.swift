import Foundation

/// A large body being recorded, written to a hidden temporary file in the cassette's bodies folder
/// as it arrives, so it is never held whole in memory.
///
/// ``append(_:)`` takes the bytes as received (cheap: one write). ``install(contentEncoding:)``,
/// called once the exchange is complete and off the event loop, decodes a gzip or deflate body
/// piece by piece (``ContentCodingStream``), replaces the secrets' values and redacts it piece by
/// piece when the spool was given a ``StreamingReplacement`` or a ``JSONStreamRedactor``, hashes it
/// (``SHA256``), flushes it to disk and renames it to `<sha256>.bin`: a side file has its final
/// name only when it is whole and clean, and a
/// cassette names it only after that. (Until then the hidden temporary file holds the body as it
/// came; one a killed run left is removed by the next recording into the folder.) ``discard()``
/// (or dropping the spool) removes the temporary file of an exchange that is not recorded (the
/// client or the upstream left mid-body).
package final class SideFileSpool: Sendable {
    private struct State {
        var handle: FileHandle?
        var byteCount = 0
        /// Whether the temporary file is gone: installed under its final name or discarded.
        var isClosed = false
    }

    /// The bodies folder the side file goes in.
    package let folder: URL
    /// The temporary file receiving the bytes.
    let temporary: URL
    /// What replaces the secrets' values in the body before it gets its name, if anything does.
    private let concealing: StreamingReplacement?
    /// What redacts the body before it gets its name, if anything does.
    private let redaction: JSONStreamRedactor?
    /// The most bytes a gzip or deflate body decodes to on disk (``defaultDecodedLimit``).
    private let decodedLimit: Int
    private let state: Locked<State>

    /// The most bytes a side file's gzip or deflate body is decoded to: 1 GiB. A compression bomb
    /// (1 MiB of gzip can inflate to 1 GiB) would otherwise fill the disk a thousand times faster
    /// than it arrived; a body that decodes past it is kept as it came, marked encoded, and
    /// replayed byte for byte, as a body that does not decode is.
    package static let defaultDecodedLimit = 1 << 30

    /// Creates the bodies folder when needed and a new temporary file in it.
    ///
    /// - Parameters:
    ///   - concealing: applied to the body (decoded) when it is installed, before `redaction`.
    ///   - redaction: applied to the body (decoded) when it is installed.
    ///   - decodedLimit: the most bytes a gzip or deflate body is decoded to.
    package init(folder: URL, concealing: StreamingReplacement? = nil, redacting redaction: JSONStreamRedactor? = nil,
                 decodedLimit: Int = SideFileSpool.defaultDecodedLimit) throws(SideFileError) {
        self.folder = folder
        self.decodedLimit = decodedLimit
        self.concealing = concealing
        self.redaction = redaction
        temporary = Self.temporaryName(in: folder)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .unreadable(folder.path, "\(error)")
        }
        state = Locked(State(handle: try Self.createFile(temporary)))
    }

    /// A new file at `url`, open for writing: created and opened in one call, so a failure leaves
    /// no empty file behind.
    private static func createFile(_ url: URL) throws(SideFileError) -> FileHandle {
        switch SystemCalls.createExclusively(url.path) {
        case .success(let fd): return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        case .failure(let error): throw .unreadable(url.path, "cannot create the file: \(error.reason)")
        }
    }

    deinit {
        discard()
    }

    /// How many bytes were appended.
    package var byteCount: Int { state.withLock { $0.byteCount } }

    /// Appends the next bytes received.
    package func append(_ bytes: Data) throws(SideFileError) {
        do {
            try state.withLock { state in
                guard let handle = state.handle else { throw SideFileError.unreadable(temporary.path, "the spool is closed") }
                try handle.write(contentsOf: bytes)
                state.byteCount += bytes.count
            }
        } catch let error as SideFileError {
            throw error
        } catch {
            throw .unreadable(temporary.path, "\(error)")
        }
    }

    /// Makes the bytes received a side file: decoded when `contentEncoding` is gzip or deflate (kept
    /// as received and marked ``Body/isEncoded`` when they do not decode), with the secrets' values
    /// replaced and redacted when the spool was told to (``cleaned(_:)``), named by their SHA-256,
    /// on disk. Returns the body that refers to it.
    package func install(contentEncoding: String?) throws(SideFileError) -> Body {
        let received = try close()
        defer { discard() }
        let coding = ContentCoding(header: contentEncoding)
        let decoded = coding.flatMap { coding in
            let stream = ContentCodingStream(decoding: coding, limit: decodedLimit)
            return try? Self.rewrite(received, in: folder, update: stream.update(_:emit:), finish: stream.finish(emit:))
        }
        defer { if let decoded { try? FileManager.default.removeItem(at: decoded.file.url) } }
        let isEncoded = coding != nil && decoded == nil
        if !isEncoded, let cleaned = try cleaned(decoded?.file ?? received) {
            defer { try? FileManager.default.removeItem(at: cleaned.file.url) }
            return Body(file: try Self.seal(cleaned.file.url, digest: cleaned.digest, size: cleaned.file.size, in: folder))
        }
        let plain: Rewritten
        if let decoded { plain = decoded } else { plain = Rewritten(file: received, digest: try Self.digest(of: received)) }
        var body = Body(file: try Self.seal(plain.file.url, digest: plain.digest, size: plain.file.size, in: folder))
        body.isEncoded = isEncoded
        return body
    }

    /// Closes and removes the temporary file: the body is not recorded. Does nothing once installed.
    package func discard() {
        let handle = state.withLock { state -> FileHandle?? in
            guard !state.isClosed else { return nil }
            state.isClosed = true
            defer { state.handle = nil }
            return .some(state.handle)
        }
        guard let handle else { return }
        try? handle?.close()
        try? FileManager.default.removeItem(at: temporary)
    }

    /// Copies a side file (another cassette's) to `destination`, through a temporary file and a rename.
    static func copy(_ source: BodyFile, to destination: URL) throws(SideFileError) {
        let spool = try SideFileSpool(folder: destination.deletingLastPathComponent())
        try source.read { piece in try spool.append(piece) }
        let copied = try spool.close()
        _ = try seal(spool.temporary, digest: destination.deletingPathExtension().lastPathComponent, size: copied.size,
                     in: spool.folder)
    }

    /// A side file past ``Body/wholeReadLimit`` redacted piece by piece, as the recording proxy
    /// redacts one as it installs it (`tapedeck redact` with rules the recording did not have): the
    /// new side file in `folder` and the paths that named a value there; nil when no byte changed
    /// or the body is not JSON (kept as it is, as a body redacted whole is).
    package static func redacted(_ source: BodyFile, by redaction: JSONStreamRedactor,
                                 into folder: URL) throws(SideFileError) -> (file: BodyFile, paths: [String])? {
        var redaction = redaction
        let rewritten: Rewritten
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            rewritten = try rewrite(source, in: folder, update: { piece, write in try write(try redaction.update(piece)) },
                                    finish: { write in try write(try redaction.finish()) })
        } catch is JSONStreamRedactor.NotJSON {
            return nil
        } catch let error as SideFileError {
            throw error
        } catch {
            throw .unreadable(folder.path, "\(error)")
        }
        guard rewritten.digest != source.digest else {
            try? FileManager.default.removeItem(at: rewritten.file.url)
            return nil
        }
        return (try seal(rewritten.file.url, digest: rewritten.digest, size: rewritten.file.size, in: folder), redaction.redactedPaths)
    }

    /// The paths that name a value in a side file past ``Body/wholeReadLimit``, read piece by piece
    /// through `redaction` and written nowhere (`tapedeck lint`, a dry run); nil when redaction
    /// would change no byte or the body is not JSON.
    package static func redactionPaths(in source: BodyFile, by redaction: JSONStreamRedactor) throws(SideFileError) -> [String]? {
        var redaction = redaction
        var hash = SHA256()
        var notJSON = false
        do {
            try source.read { piece in
                do { hash.update(try redaction.update(piece)) } catch { notJSON = true; throw error }
            }
            hash.update(try redaction.finish())
        } catch {
            if notJSON || error is JSONStreamRedactor.NotJSON { return nil }
            throw error as? SideFileError ?? .unreadable(source.url.path, "\(error)")
        }
        return hash.finalize().hexadecimal == source.digest ? nil : redaction.redactedPaths
    }

    /// Stops writing: the bytes received, as a file to read.
    private func close() throws(SideFileError) -> BodyFile {
        let (handle, size) = state.withLock { state in
            defer { state.handle = nil }
            return (state.handle, state.byteCount)
        }
        guard let handle else { throw .unreadable(temporary.path, "the spool is closed") }
        do {
            try handle.close()
        } catch {
            throw .unreadable(temporary.path, "\(error)")
        }
        return BodyFile(url: temporary, size: size)
    }

    /// The body with the secrets' values replaced and redacted, as the spool was told to, in a new
    /// temporary file; nil when there is nothing to do. A body that is not JSON is kept unredacted,
    /// as a body redacted whole is, but its secrets are replaced all the same. Any other failure
    /// throws: the body is not recorded rather than recorded unclean.
    private func cleaned(_ source: BodyFile) throws(SideFileError) -> Rewritten? {
        do {
            if redaction != nil {
                do {
                    return try Self.rewrite(source, in: folder, concealing: concealing, redacting: redaction)
                } catch is JSONStreamRedactor.NotJSON {
                    // Not JSON after all: the secrets alone, below.
                }
            }
            guard concealing != nil else { return nil }
            return try Self.rewrite(source, in: folder, concealing: concealing, redacting: nil)
        } catch let error as SideFileError {
            throw error
        } catch {
            throw .unreadable(source.url.path, "\(error)")
        }
    }

    /// Writes `source` with the secrets' values replaced, then redacted (either step may be nil),
    /// into a new temporary file.
    private static func rewrite(_ source: BodyFile, in folder: URL, concealing: StreamingReplacement?,
                                redacting redaction: JSONStreamRedactor?) throws -> Rewritten {
        var concealing = concealing, redaction = redaction
        return try rewrite(source, in: folder, update: { piece, write in
            let concealed = concealing?.update(piece) ?? piece
            try write(try redaction?.update(concealed) ?? concealed)
        }, finish: { write in
            let concealed = concealing?.finish() ?? Data()
            try write(try redaction?.update(concealed) ?? concealed)
            if let last = try redaction?.finish() { try write(last) }
        })
    }

    /// A temporary file and the SHA-256 of its bytes.
    private struct Rewritten {
        let file: BodyFile
        let digest: String
    }

    /// Writes `source` through `update` and `finish` (a decoder, a redactor), which hand what they
    /// make to the writer they are given, into a new temporary file, hashing what is written;
    /// removes it again and throws their error when they throw.
    private static func rewrite(_ source: BodyFile, in folder: URL, update: (Data, (Data) throws -> Void) throws -> Void,
                                finish: ((Data) throws -> Void) throws -> Void) throws -> Rewritten {
        let url = temporaryName(in: folder)
        let output = try createFile(url)
        do {
            defer { try? output.close() }
            var hash = SHA256()
            var size = 0
            func write(_ bytes: Data) throws {
                guard !bytes.isEmpty else { return }
                hash.update(bytes)
                size += bytes.count
                try output.write(contentsOf: bytes)
            }
            var failure: (any Error)?
            do {
                try source.read { piece in
                    do { try update(piece, write) } catch { failure = error; throw error }
                }
            } catch {
                throw failure ?? error
            }
            try finish(write)
            return Rewritten(file: BodyFile(url: url, size: size), digest: hash.finalize().hexadecimal)
        } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
    }

    /// The SHA-256 of a file's bytes, read in pieces.
    private static func digest(of file: BodyFile) throws(SideFileError) -> String {
        var hash = SHA256()
        try file.read { hash.update($0) }
        return hash.finalize().hexadecimal
    }

    /// Flushes `file` to disk and renames it to `<digest>.bin` in `folder` (an identical side file
    /// already there is kept, content-addressed); the folder is flushed so the rename survives a power cut.
    private static func seal(_ file: URL, digest: String, size: Int, in folder: URL) throws(SideFileError) -> BodyFile {
        let destination = folder.appendingPathComponent("\(digest).bin")
        do {
            let handle = try FileHandle(forWritingTo: file)
            try handle.synchronize()
            try handle.close()
            if FileManager.default.fileExists(atPath: destination.path) {
                try FileManager.default.removeItem(at: file)
            } else {
                try FileManager.default.moveItem(at: file, to: destination)
            }
        } catch {
            throw .unreadable(destination.path, "\(error)")
        }
        AtomicFile.syncFolder(of: destination)
        return BodyFile(url: destination, size: size)
    }

    /// A new hidden name in `folder`: never taken for a side file's, which never starts with a dot.
    private static func temporaryName(in folder: URL) -> URL {
        folder.appendingPathComponent("\(temporaryPrefix)\(UInt64.random(in: 0...UInt64.max))\(temporarySuffix)")
    }

    private static let temporaryPrefix = ".spool-"
    private static let temporarySuffix = ".tmp"

    /// Removes the temporary files of spools a killed run left in `folder` (a process killed with
    /// `kill -9` mid-body cannot discard its own); for a recorder opening its cassette, before it
    /// starts any spool.
    static func removeLeftovers(in folder: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(temporaryPrefix) && name.hasSuffix(temporarySuffix) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}
