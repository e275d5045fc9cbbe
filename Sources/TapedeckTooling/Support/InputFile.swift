import Foundation
import TapedeckCore

/// How the tools read a file they were given: whole, with a UTF-8 byte order mark dropped (editors
/// on Windows write one before JSON and YAML); a file that cannot be read is bad input naming it.
package enum InputFile {
    /// The file's bytes, without a leading UTF-8 byte order mark.
    package static func read(_ file: URL) throws(ToolingError) -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ToolingError(file: file.path, kind: .badInput(path: "", message: "cannot read: \(UnreadableFile.reason(error, reading: file))"))
        }
        return withoutByteOrderMark(data)
    }

    /// The bytes without a leading UTF-8 byte order mark.
    package static func withoutByteOrderMark(_ data: Data) -> Data {
        data.starts(with: [0xef, 0xbb, 0xbf]) ? Data(data.dropFirst(3)) : data
    }
}
