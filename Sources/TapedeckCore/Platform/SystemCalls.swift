#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Tapedeck needs Glibc, Musl or Darwin")
#endif

/// The few operating-system calls the core makes by hand, one branch per C library.
///
/// Everything else in the core goes through Foundation. Each call here has a Glibc, a Musl and a
/// Darwin spelling, so the core builds on Linux and on every Apple platform; the repository's
/// `scripts/check-portability.py` keeps platform calls out of the other files.
enum SystemCalls {
    /// What opening a file without following a link found.
    enum NoFollowOpen {
        /// The file, open for reading.
        case opened(Int32)
        /// The name is a symbolic link.
        case link
        /// The file could not be opened (gone, or not allowed).
        case failed
    }

    /// Opens `path` for reading unless its last component is a symbolic link (`O_NOFOLLOW`).
    static func openForReadingWithoutFollowingLinks(_ path: String) -> NoFollowOpen {
        #if canImport(Glibc)
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        #elseif canImport(Musl)
        let fd = Musl.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        #elseif canImport(Darwin)
        let fd = Darwin.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        #endif
        if fd >= 0 { return .opened(fd) }
        return errno == ELOOP ? .link : .failed
    }

    /// Creates `path` and opens it for writing, failing if it exists (`O_CREAT | O_EXCL`): one
    /// call, so a failure leaves no file behind. The descriptor, or why it failed.
    static func createExclusively(_ path: String) -> Result<Int32, CreateError> {
        #if canImport(Glibc)
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        #elseif canImport(Musl)
        let fd = Musl.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        #elseif canImport(Darwin)
        let fd = Darwin.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        #endif
        return fd >= 0 ? .success(fd) : .failure(CreateError(errno: errno))
    }

    /// Why ``createExclusively(_:)`` failed.
    struct CreateError: Error {
        /// The C library's error number.
        let errno: Int32
        /// The same in the C library's words.
        var reason: String { String(cString: strerror(errno)) }
    }

    /// Reads up to `count` bytes from `fd` into `buffer`; the byte count, or -1 with `errno` set.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer?, count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
        #elseif canImport(Musl)
        Musl.read(fd, buffer, count)
        #elseif canImport(Darwin)
        Darwin.read(fd, buffer, count)
        #endif
    }

    /// Writes up to `count` bytes from `buffer` to `fd`; the byte count, or -1 with `errno` set.
    static func write(_ fd: Int32, from buffer: UnsafeRawPointer?, count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
        #elseif canImport(Musl)
        Musl.write(fd, buffer, count)
        #elseif canImport(Darwin)
        Darwin.write(fd, buffer, count)
        #endif
    }

    /// Flushes `fd` to stable storage; 0, or -1 with `errno` set.
    ///
    /// On Darwin `fsync` only reaches the drive's cache, so this asks for `F_FULLFSYNC`, and
    /// falls back to `fsync` on file systems that do not support it.
    static func flushToDisk(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
        return fsync(fd)
        #else
        return fsync(fd)
        #endif
    }

    /// Tells the kernel the file's cached pages will not be read again (Linux only; elsewhere nothing).
    static func dropCachedPages(_ fd: Int32) {
        #if os(Linux)
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        #endif
    }

    /// Opens `path` for reading and writing, creating it when missing; the descriptor, or -1 with `errno` set.
    static func openCreating(_ path: String) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #elseif canImport(Musl)
        Musl.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #elseif canImport(Darwin)
        Darwin.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #endif
    }

    /// Takes the exclusive advisory lock of `fd`'s file (`flock`) unless another open file holds
    /// it, in this process or another; whether it was taken. ``unlock(_:)`` gives it back, as does
    /// the process's end, however it ends.
    static func lockWithoutWaiting(_ fd: Int32) -> Bool {
        flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    /// Gives back the advisory lock of `fd`'s open file at once. Closing `fd` alone may not: a child
    /// process forked at that moment holds a copy of every descriptor until it starts its program,
    /// and the lock lasts until the last copy closes.
    static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
    }

    /// The current `errno`.
    static var lastError: Int32 { errno }
}
