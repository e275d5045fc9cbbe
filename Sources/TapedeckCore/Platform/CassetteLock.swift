import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Holds a cassette for one recorder at a time. Each recorder writes the whole cassette as it
/// saw it plus what it recorded, so two recording the same file at once (two `tapedeck record`
/// runs, parallel test processes or tests in `new-episodes` mode) kept only the last one's
/// recordings; the second now gets an error naming the first's process instead.
///
/// The lock is the operating system's advisory lock (`flock`) on a small file named after the
/// cassette's full path, in the temporary folder (nothing is added beside the cassette). Releasing
/// it, or the process's end however it ends (a kill included), gives it back; the file stays,
/// holding the last holder's process ID, since removing it would let two holders lock two files.
package final class CassetteLock: Sendable {
    private let descriptor: Locked<Int32?>

    /// Takes the lock of the cassette at `file`.
    ///
    /// - Throws: ``CassetteError`` naming the process that records the cassette already, or why
    ///   the lock file could not be opened.
    package init(for file: URL) throws(CassetteError) {
        let lockFile = Self.lockFile(for: file)
        try? FileManager.default.createDirectory(at: lockFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        let fd = SystemCalls.openCreating(lockFile.path)
        guard fd >= 0 else {
            let reason = String(cString: strerror(SystemCalls.lastError))
            throw CassetteError(file: file.path, kind: .io("cannot open the recording lock \(lockFile.path): \(reason)"))
        }
        guard SystemCalls.lockWithoutWaiting(fd) else {
            let holder = (try? String(contentsOf: lockFile, encoding: .utf8)).flatMap { Int32($0) }
            close(fd)
            throw CassetteError(file: file.path, kind: .inUse(process: holder))
        }
        let pid = Data(String(ProcessInfo.processInfo.processIdentifier).utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { SystemCalls.write(fd, from: $0.baseAddress, count: $0.count) }
        descriptor = Locked(fd)
    }

    /// Gives the lock back; later calls do nothing.
    package func release() {
        descriptor.withLock { fd in
            if let open = fd {
                SystemCalls.unlock(open)
                close(open)
            }
            fd = nil
        }
    }

    deinit { release() }

    /// The lock file of the cassette at `file`: one per full path, symbolic links resolved, so
    /// every name of the same cassette finds the same lock.
    static func lockFile(for file: URL) -> URL {
        let absolute = file.standardizedFileURL
        let folder = absolute.deletingLastPathComponent().resolvingSymlinksInPath()
        let path = folder.appendingPathComponent(absolute.lastPathComponent).path
        return FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-locks")
            .appendingPathComponent(SHA256.hash(Data(path.utf8)).hexadecimal + ".lock")
    }
}
