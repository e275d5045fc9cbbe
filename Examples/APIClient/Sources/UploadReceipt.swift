import Foundation

/// What the API says about an uploaded file.
public struct UploadReceipt: Codable, Sendable, Equatable {
    /// The stored file name.
    public var fileName: String
    /// Its size in bytes.
    public var size: Int
    /// The description sent with it.
    public var description: String

    /// Creates a receipt.
    public init(fileName: String, size: Int, description: String) {
        self.fileName = fileName
        self.size = size
        self.description = description
    }
}
