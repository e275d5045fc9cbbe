import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces files so that a crash at any moment leaves the old or the new content, never a mix.
enum AtomicFile {
    /// Writes to a temporary file beside the target, flushes it to disk, renames it over the target
    /// and flushes the folder, so the rename itself survives a power cut.
    static func write(_ data: Data, to url: URL) throws(AtomicWriteError) {
        try write([data], to: url)
    }

    /// Writes `pieces` one after another, the same way; small pieces are gathered into one
    /// buffer first, so a file of many small pieces takes few system calls and no large copy.
    static func write(_ pieces: [Data], to url: URL) throws(AtomicWriteError) {
        let directory = url.deletingLastPathComponent().path
        let temporary = "\(directory)/.\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AtomicWriteError(path: url.path, step: "create \(temporary)", errno: errno) }
        var failure: AtomicWriteError?
        var output = GatheredOutput(fd: fd)
        for piece in pieces where failure == nil {
            failure = output.write(piece).map { AtomicWriteError(path: url.path, step: "write", errno: $0) }
        }
        if failure == nil, let error = output.flush() ?? (fsync(fd) == 0 ? nil : errno) {
            failure = AtomicWriteError(path: url.path, step: "write", errno: error)
        }
        close(fd)
        if failure == nil, rename(temporary, url.path) != 0 {
            failure = AtomicWriteError(path: url.path, step: "rename", errno: errno)
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }
}

/// Writes to a file descriptor through a 1 MiB buffer; larger pieces go straight through.
private struct GatheredOutput {
    private static let capacity = 1 << 20
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(Self.capacity)
    }

    /// Queues or writes `data`; returns errno on failure.
    mutating func write(_ data: Data) -> Int32? {
        if buffer.count + data.count > Self.capacity, let error = flush() { return error }
        if data.count >= Self.capacity { return data.withUnsafeBytes { Self.writeAll($0, to: fd) } }
        buffer.append(contentsOf: data)
        return nil
    }

    /// Writes what is buffered; returns errno on failure.
    mutating func flush() -> Int32? {
        defer { buffer.removeAll(keepingCapacity: true) }
        return buffer.withUnsafeBytes { Self.writeAll($0, to: fd) }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }
}

/// A failed atomic write: the previous file, if any, is untouched.
struct AtomicWriteError: Error, CustomStringConvertible {
    let path: String
    let step: String
    let errno: Int32

    var description: String {
        errno == 0 ? "cannot write \(path): \(step)" : "cannot write \(path): \(step) failed: \(String(cString: strerror(errno)))"
    }
}
