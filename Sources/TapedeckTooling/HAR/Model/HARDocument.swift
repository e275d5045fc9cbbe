import Foundation

/// A HAR 1.2 file (W3C Web Performance "HTTP Archive"), as browsers, mitmproxy and Polly.js write it.
///
/// Only what a cassette needs is modelled; other members are ignored on read. Members that
/// start with `_` are HAR's custom fields, used to carry what HAR has no place for.
package struct HARDocument: Sendable, Hashable, Codable {
    /// The archive.
    package var log: HARLog

    /// Creates a document.
    package init(log: HARLog) {
        self.log = log
    }
}
