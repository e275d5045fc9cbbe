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
        let directory = url.deletingLastPathComponent().path
        let temporary = "\(directory)/.\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AtomicWriteError(path: url.path, step: "create \(temporary)", errno: errno) }
        var failure: AtomicWriteError?
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            failure = AtomicWriteError(path: url.path, step: "write: \(error.localizedDescription)", errno: 0)
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

/// A failed atomic write: the previous file, if any, is untouched.
struct AtomicWriteError: Error, CustomStringConvertible {
    let path: String
    let step: String
    let errno: Int32

    var description: String {
        errno == 0 ? "cannot write \(path): \(step)" : "cannot write \(path): \(step) failed: \(String(cString: strerror(errno)))"
    }
}
