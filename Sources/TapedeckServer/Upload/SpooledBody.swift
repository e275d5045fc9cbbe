import Foundation
import TapedeckCore

/// A whole request body in a file of the server's upload folder (``UploadSpool``), named by its
/// SHA-256. The file lives as long as this value: whoever reads it (the forwarder sending it
/// upstream, the recorder copying it into a cassette) keeps a reference until done.
package final class SpooledBody: Sendable {
    /// The file.
    package let file: BodyFile

    init(file: BodyFile) {
        self.file = file
    }

    deinit {
        try? FileManager.default.removeItem(at: file.url.deletingLastPathComponent())
    }
}
