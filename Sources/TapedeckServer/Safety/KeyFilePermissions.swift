import Foundation

/// The CA key must be readable by its owner only; a key open to group or others is refused
/// with the command that fixes it.
enum KeyFilePermissions {
    /// Throws when the file's mode grants anything to group or others.
    static func check(_ file: URL) throws(AuthorityError) {
        var info = stat()
        guard stat(file.path, &info) == 0 else { return }  // a missing key is reported when it is read
        let mode = info.st_mode & 0o777
        if mode & 0o077 != 0 {
            throw AuthorityError(file: file.path, message: "the CA key is readable by group or others (mode \(String(mode, radix: 8))); refused. Fix it with: chmod 600 '\(file.path)'")
        }
    }
}
