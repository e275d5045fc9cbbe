import Foundation

/// Why a file given by name could not be read, in words for its error: a folder and a missing file
/// say so plainly (Foundation's text for a folder is only "The operation could not be completed");
/// anything else keeps Foundation's own description.
package enum UnreadableFile {
    /// The reason `error`, thrown while reading `file`, gives a user.
    package static func reason(_ error: any Error, reading file: URL) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) else { return "no such file" }
        return isFolder.boolValue ? "it is a folder, not a file" : error.localizedDescription
    }
}
