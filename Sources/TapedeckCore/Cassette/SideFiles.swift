import Foundation

/// Large bodies kept beside a cassette as `NAME.bodies/<sha256>.bin`, so cassettes stay small.
final class SideFiles: Sendable {
    /// A body to be written beside the cassette.
    struct Pending: Sendable, Hashable {
        /// Where the bytes come from.
        enum Source: Sendable, Hashable {
            /// Bytes in memory.
            case bytes(Data)
            /// A side file elsewhere (another cassette's), copied.
            case file(BodyFile)
        }

        /// The path relative to the cassette's folder.
        let relativePath: String
        /// The bytes.
        let source: Source
    }

    /// The folder the cassette is in; nil for a cassette with no file.
    let directory: URL?
    /// The cassette's file name without `.json`.
    let cassetteName: String
    /// Bodies larger than this many bytes go to a side file when writing.
    let threshold: Int
    private let pending = Locked<[Pending]>([])

    init(cassetteFile: URL?, threshold: Int) {
        directory = cassetteFile?.deletingLastPathComponent()
        cassetteName = cassetteFile.map { $0.deletingPathExtension().lastPathComponent } ?? "cassette"
        self.threshold = threshold
    }

    /// Where `body` is written when it goes to a side file, registered to write: a body already in
    /// a side file keeps it (copied here when it is another cassette's), one in memory goes to a
    /// side file past ``threshold``. Nil when it is written inline, always so for a cassette with no folder.
    func place(_ body: Body) -> String? {
        guard directory != nil else { return nil }
        if let file = body.file { return add(file) }
        return body.count > threshold ? add(body.data) : nil
    }

    /// Registers a body to write and returns its relative path.
    func add(_ data: Data) -> String {
        let path = relativePath(digest: SHA256.hash(data).hexadecimal)
        pending.withLock { $0.append(Pending(relativePath: path, source: .bytes(data))) }
        return path
    }

    /// The relative path of a body already in a side file: its own name when it is in this
    /// cassette's bodies folder, else a copy registered to write there.
    func add(_ file: BodyFile) -> String {
        let path = relativePath(digest: file.digest)
        if let directory, directory.appendingPathComponent(path).standardizedFileURL.path == file.url.standardizedFileURL.path {
            return path
        }
        pending.withLock { $0.append(Pending(relativePath: path, source: .file(file))) }
        return path
    }

    /// The path, relative to the cassette's folder, of the side file of bytes with this SHA-256.
    func relativePath(digest: String) -> String { "\(cassetteName).bodies/\(digest).bin" }

    /// The folder side files go in; nil for a cassette with no file.
    var bodiesFolder: URL? { directory?.appendingPathComponent("\(cassetteName).bodies") }

    /// The bodies registered so far, emptied.
    func takePending() -> [Pending] { pending.withLock { list in defer { list = [] }; return list } }

    /// Registers bodies again whose writing failed, so the next save writes them.
    func restore(_ files: [Pending]) { pending.withLock { $0.insert(contentsOf: files, at: 0) } }

    /// Finds a side file named in a cassette without reading it, refusing names that leave the bodies folder.
    func reference(_ relativePath: String) throws(SideFileError) -> BodyFile {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].hasSuffix(".bodies"), parts[1].hasSuffix(".bin"), BodyFile.isDigest(parts[1].dropLast(4)),
              !parts.contains(where: { $0.isEmpty || $0.hasPrefix(".") }) else {
            throw .badName(relativePath)
        }
        guard let directory else { throw .noFolder(relativePath) }
        let folder = directory.appendingPathComponent(String(parts[0]), isDirectory: true)
        let url = folder.appendingPathComponent(String(parts[1]))
        // Stat, not read: a side file of any size costs nothing until a request asks for it. Links are
        // not followed (attributesOfItem does not follow the last one): the bodies folder and the
        // file must be themselves, so a link cannot serve a file from outside the cassette's folder.
        guard (try? FileManager.default.attributesOfItem(atPath: folder.path))?[.type] as? FileAttributeType == .typeDirectory else {
            throw .missing(url.path)
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              let size = (attributes[.size] as? NSNumber)?.intValue else { throw .missing(url.path) }
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw .notAFile(url.path) }
        return BodyFile(url: url, size: size)
    }

    /// Writes registered bodies atomically; content-addressed files already present are kept.
    static func write(_ files: [Pending], into directory: URL) throws {
        for file in files {
            let url = directory.appendingPathComponent(file.relativePath)
            if FileManager.default.fileExists(atPath: url.path) { continue }
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            switch file.source {
            case .bytes(let data):
                try AtomicFile.write(data, to: url)
            case .file(let source):
                try SideFileSpool.copy(source, to: url)
            }
        }
    }
}

/// A side file that cannot be used, naming it.
public enum SideFileError: Error, CustomStringConvertible {
    /// The name in the cassette is not `NAME.bodies/<sha256>.bin`.
    case badName(String)
    /// The cassette has no folder to find side files in.
    case noFolder(String)
    /// The file does not exist (or is not a regular file).
    case missing(String)
    /// The name is a symbolic link or not a regular file.
    case notAFile(String)
    /// The file is no longer the size it had when the cassette was read.
    case sizeChanged(String, expected: Int, found: Int)
    /// The bytes do not have the SHA-256 the file is named after.
    case digestMismatch(String, found: String)
    /// Reading or writing the file failed.
    case unreadable(String, String)

    public var description: String {
        switch self {
        case .badName(let name): return "side file name \"\(name)\" is not of the form NAME.bodies/<sha256>.bin"
        case .noFolder(let name): return "side file \"\(name)\" cannot be read: the cassette has no folder"
        case .missing(let path): return "side file \(path) does not exist"
        case .notAFile(let path): return "side file \(path) is a link or not a regular file; side files are read only as themselves"
        case .digestMismatch(let path, let found):
            return "side file \(path) was changed: its bytes have SHA-256 \(found), not the one it is named after"
        case .sizeChanged(let path, let expected, let found):
            return "side file \(path) changed: it had \(expected) bytes when the cassette was read, now \(found)"
        case .unreadable(let path, let reason): return "side file \(path) cannot be read or written: \(reason)"
        }
    }
}

extension CodingUserInfoKey {
    /// Carries the ``SideFiles`` of the cassette being read or written.
    static let tapedeckSideFiles = CodingUserInfoKey(rawValue: "tapedeck.sideFiles")!
}
