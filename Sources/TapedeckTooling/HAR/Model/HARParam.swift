import Foundation

/// A posted form parameter.
public struct HARParam: Sendable, Hashable, Codable {
    /// The name.
    public var name: String
    /// The value, absent for a file.
    public var value: String?
    /// The file name of an uploaded file.
    public var fileName: String?
    /// The file's media type.
    public var contentType: String?

    /// Creates a parameter.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}
