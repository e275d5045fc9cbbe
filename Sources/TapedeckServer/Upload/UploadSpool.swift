import Foundation
import NIOCore
@_spi(Internals) import TapedeckCore

/// A request body past ``RequestBodyCollector``'s threshold, written to a file as it arrives and
/// hashed as it goes, so an upload of any size holds only the pieces in flight.
///
/// Each spool has a folder of its own under the server's upload folder (two uploads of the same
/// bytes never share a file); ``finish()`` renames the file to `<sha256>.bin` there, so the body
/// it gives is named by its content as a cassette's side file is, and matching compares the two by
/// name. A spool that is dropped unfinished (the client left mid-body) removes its folder.
/// Lives on its connection's event loop; the writes are plain file writes, which the page cache takes at
/// memory speed.
final class UploadSpool {
    private let folder: URL
    /// The file the bytes go to until ``finish()`` names it.
    let temporary: URL
    private var handle: FileHandle?
    private var hash = SHA256()
    /// The bytes written to the file so far.
    private(set) var byteCount = 0
    /// The bytes kept until there are ``writeSize`` of them: HTTP/2 brings a body in frames of
    /// 16 KiB, and a write a frame cost more than the frames' bytes did.
    private var pending = ByteBuffer()
    private static let writeSize = 1 << 20

    /// Creates `root` when needed, a folder of the spool's own in it, and the file.
    init(root: URL) throws(SideFileError) {
        folder = root.appendingPathComponent(UUID().uuidString, isDirectory: true)
        temporary = folder.appendingPathComponent("upload.tmp")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw SideFileError.unreadable(temporary.path, "cannot create the file")
            }
            handle = try FileHandle(forWritingTo: temporary)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error as? SideFileError ?? .unreadable(folder.path, "\(error)")
        }
    }

    deinit {
        guard let handle else { return }
        try? handle.close()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Appends the next bytes received.
    func append(_ bytes: ByteBuffer) throws(SideFileError) {
        guard handle != nil else { throw .unreadable(temporary.path, "the upload spool is closed") }
        var bytes = bytes
        pending.writeBuffer(&bytes)
        if pending.readableBytes >= Self.writeSize { try writePending() }
    }

    private func writePending() throws(SideFileError) {
        guard let handle, pending.readableBytes > 0 else { return }
        do {
            try pending.withUnsafeReadableBytes { try handle.write(contentsOf: $0) }
        } catch {
            throw .unreadable(temporary.path, "\(error)")
        }
        pending.withUnsafeReadableBytes { hash.update($0) }
        byteCount += pending.readableBytes
        pending.clear()
    }

    /// Closes the file and names it by its SHA-256: the body whole, owned by the value returned.
    func finish() throws(SideFileError) -> SpooledBody {
        try writePending()
        guard let handle else { throw .unreadable(temporary.path, "the upload spool is closed") }
        self.handle = nil
        let named = folder.appendingPathComponent("\(hash.finalize().hexadecimal).bin")
        do {
            try handle.close()
            try FileManager.default.moveItem(at: temporary, to: named)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw .unreadable(temporary.path, "\(error)")
        }
        return SpooledBody(file: BodyFile(url: named, size: byteCount))
    }
}
