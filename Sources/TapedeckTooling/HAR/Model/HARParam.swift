import Foundation

/// A posted form parameter.
package struct HARParam: Sendable, Hashable, Codable {
    /// The name.
    package var name: String
    /// The value, absent for a file.
    package var value: String?
    /// The file name of an uploaded file.
    package var fileName: String?
    /// The file's media type.
    package var contentType: String?

    /// Creates a parameter.
    package init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}
