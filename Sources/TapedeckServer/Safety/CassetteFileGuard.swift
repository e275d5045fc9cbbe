import Foundation

/// Keeps `Tapedeck-Cassette` inside `--cassette-dir`: the file, once every symbolic link is
/// resolved, must still lie under the folder (itself resolved).
package enum CassetteFileGuard {
    /// Why the file may not be read, or nil when it is inside the folder.
    package static func refusal(file: URL, directory: URL) -> String? {
        let root = directory.resolvingSymlinksInPath().standardizedFileURL.path
        let resolved = file.resolvingSymlinksInPath().standardizedFileURL.path
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard resolved.hasPrefix(prefix) else {
            return "Tapedeck-Cassette \"\(file.lastPathComponent)\" resolves outside the cassette folder \(directory.path); refused"
        }
        return nil
    }
}
