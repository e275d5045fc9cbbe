import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the tests put their temporary files and folders: one folder per test process,
/// `tapedeck-test-run-<pid>` in the system's temporary directory, removed when the process exits,
/// so a run leaves nothing behind. A folder whose process ended without exiting (a crash, a kill
/// at a timeout) is removed by the next run that starts.
public enum TestFiles {
    private static let prefix = "tapedeck-test-run-"

    /// This process's folder, made on first use.
    public static let folder: URL = {
        let base = FileManager.default.temporaryDirectory
        removeFoldersOfEndedRuns(in: base)
        let folder = base.appending(path: "\(prefix)\(getpid())", directoryHint: .isDirectory)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestFiles.folder) }
        return folder
    }()

    /// Removes the folders of test processes that are no longer running.
    private static func removeFoldersOfEndedRuns(in base: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: base.appending(path: name))
        }
    }
}
