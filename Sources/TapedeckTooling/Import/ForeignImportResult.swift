import TapedeckCore

/// What importing another tool's recording produced, whatever its layout.
package struct ForeignImportResult: Sendable {
    /// The layout recognised, in words: `go-vcr`, `HAR from Polly.JS 1.3.1`.
    package var layout: String
    /// The cassette, one interaction per recorded one, in order.
    package var cassette: Cassette
    /// Entries left out and why (HAR entries a browser never completed).
    package var skipped: [String]
    /// Every redaction applied: `interactions[2]: request header Authorization`.
    package var changes: [String]
}
