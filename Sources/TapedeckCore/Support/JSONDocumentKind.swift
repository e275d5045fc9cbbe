/// A kind of JSON file (or request body) Tapedeck reads, as its errors name it: what it is, and
/// the shape its top level must have (`stubs file: expected an object {"version": 1, "stubs":
/// [...]}, found an array`).
package struct JSONDocumentKind: Sendable, Hashable {
    /// What the document is called in a message: `cassette`, `stubs file`.
    package let name: String
    /// Its top level as a person writes it: `{"version": 1, "interactions": [...]}`.
    package let shape: String

    /// Creates a kind.
    package init(name: String, shape: String) {
        self.name = name
        self.shape = shape
    }

    /// A cassette file.
    package static let cassette = JSONDocumentKind(name: "cassette", shape: #"{"version": 1, "interactions": [...]}"#)
    /// A file of stubs (`--stubs`): a cassette that holds `stubs`.
    package static let stubs = JSONDocumentKind(name: "stubs file", shape: #"{"version": 1, "stubs": [...]}"#)
    /// Stubs sent at run time (`POST /__tapedeck/stubs`): one stub, or a list of them.
    package static let stubRequest = JSONDocumentKind(name: "request body", shape: #"{"request": {...}, "response": {...}} or {"stubs": [...]}"#)
    /// A HAR file.
    package static let har = JSONDocumentKind(name: "HAR file", shape: #"{"log": {"entries": [...]}}"#)
    /// A journal saved from `GET /__tapedeck/journal`.
    package static let journal = JSONDocumentKind(name: "journal", shape: #"{"entries": [...], "dropped": 0}"#)
}
