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
    static func write(_ pieces: [some ContiguousBytes], to url: URL) throws(AtomicWriteError) {
        let temporary = try writeTemporary(pieces, beside: url)
        if rename(temporary, url.path) != 0 {
            let error = AtomicWriteError(path: url.path, step: "rename", errno: errno)
            unlink(temporary)
            throw error
        }
        syncFolder(of: url)
    }

    /// Writes the first `prefixLength` bytes of the file at `url`, then `pieces`, to a new
    /// hidden file in `url`'s folder and flushes it to disk; returns its path.
    static func writeTemporary(_ pieces: [some ContiguousBytes], beside url: URL, keepingPrefix prefixLength: Int = 0) throws(AtomicWriteError) -> String {
        let temporary = "\(folder(of: url))/.\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).tmp"
        var created = SystemCalls.createExclusively(temporary)
        if case .failure(let error) = created, error.errno == ENOENT {
            // A folder that does not exist yet (a first recording into `cassettes/`) is made.
            try? FileManager.default.createDirectory(atPath: folder(of: url), withIntermediateDirectories: true)
            created = SystemCalls.createExclusively(temporary)
        }
        let fd: Int32
        switch created {
        case .success(let opened): fd = opened
        case .failure(let error): throw AtomicWriteError(path: url.path, step: "create \(temporary)", errno: error.errno)
        }
        if prefixLength > 0, let failure = copy(prefixLength, from: url.path, to: fd) {
            close(fd)
            unlink(temporary)
            throw AtomicWriteError(path: url.path, step: failure.step, errno: failure.errno)
        }
        if let error = fill(fd, with: pieces) {
            unlink(temporary)
            throw AtomicWriteError(path: url.path, step: "write", errno: error)
        }
        return temporary
    }

    /// Cuts the file at `path` back to `length` bytes, appends `pieces` and flushes it to disk.
    static func rewrite(_ path: String, from length: Int, with pieces: [some ContiguousBytes]) throws(AtomicWriteError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw AtomicWriteError(path: path, step: "open", errno: errno) }
        guard ftruncate(fd, off_t(length)) == 0, lseek(fd, off_t(length), SEEK_SET) >= 0 else {
            let error = errno
            close(fd)
            throw AtomicWriteError(path: path, step: "truncate", errno: error)
        }
        if let error = fill(fd, with: pieces) { throw AtomicWriteError(path: path, step: "write", errno: error) }
    }

    /// Flushes `url`'s folder, so a rename in it survives a power cut.
    static func syncFolder(of url: URL) {
        let directoryFD = open(folder(of: url), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = SystemCalls.flushToDisk(directoryFD)
            close(directoryFD)
        }
    }

    private static func folder(of url: URL) -> String {
        let directory = url.deletingLastPathComponent().path
        return directory.isEmpty ? "." : directory
    }

    /// Copies the first `length` bytes of the file at `path` to `fd`; returns what failed.
    private static func copy(_ length: Int, from path: String, to fd: Int32) -> (step: String, errno: Int32)? {
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { return ("open \(path) to copy", errno) }
        defer { close(source) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var left = length
        while left > 0 {
            let count = buffer.withUnsafeMutableBytes { SystemCalls.read(source, into: $0.baseAddress, count: min(left, $0.count)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return ("read \(path)", count == 0 ? EIO : errno) }
            if let error = buffer.withUnsafeBytes({ GatheredOutput.writeAll(UnsafeRawBufferPointer(rebasing: $0[..<count]), to: fd) }) {
                return ("write", error)
            }
            left -= count
        }
        return nil
    }

    /// Writes `pieces` at the file offset, flushes to disk and closes `fd`; returns errno on failure.
    private static func fill(_ fd: Int32, with pieces: [some ContiguousBytes]) -> Int32? {
        defer { close(fd) }
        var output = GatheredOutput(fd: fd)
        for piece in pieces {
            if let error = output.write(piece) { return error }
        }
        if let error = output.flush() ?? (SystemCalls.flushToDisk(fd) == 0 ? nil : errno) { return error }
        // The bytes are on disk: drop them from the page cache, so a long recording does not fill
        // memory with cassette pages and new writes reuse the pages given back.
        SystemCalls.dropCachedPages(fd)
        return nil
    }
}

/// Writes to a file descriptor through a 1 MiB buffer; pieces of a quarter of that and more go straight through.
private struct GatheredOutput {
    private static let capacity = 1 << 20
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(Self.capacity)
    }

    /// Queues or writes `piece`; returns errno on failure.
    mutating func write(_ piece: some ContiguousBytes) -> Int32? {
        piece.withUnsafeBytes { bytes in
            if bytes.count >= Self.capacity / 4 { return flush() ?? Self.writeAll(bytes, to: fd) }
            if buffer.count + bytes.count > Self.capacity, let error = flush() { return error }
            buffer.append(contentsOf: bytes)
            return nil
        }
    }

    /// Writes what is buffered; returns errno on failure.
    mutating func flush() -> Int32? {
        defer { buffer.removeAll(keepingCapacity: true) }
        return buffer.withUnsafeBytes { Self.writeAll($0, to: fd) }
    }

    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = SystemCalls.write(fd, from: bytes.baseAddress! + offset, count: bytes.count - offset)
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
