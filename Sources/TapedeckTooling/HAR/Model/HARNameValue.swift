import Foundation

/// A name and value: a header, a query parameter or a cookie.
package struct HARNameValue: Sendable, Hashable, Codable {
    /// The name.
    package var name: String
    /// The value (the first one when the file gave several).
    package var value: String
    /// The further values when the file gave an array (`"value": ["a", "b"]`, as Polly.js wrote headers); not written.
    package var moreValues: [String] = []

    private enum CodingKeys: String, CodingKey { case name, value }

    /// Creates a pair.
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Reads a pair whose value is a string, an array of strings, or a number.
    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        let values = try container.decodeStrings(forKey: .value)
        value = values.first ?? ""
        moreValues = Array(values.dropFirst())
    }

    /// Every value, in order.
    package var values: [String] { [value] + moreValues }
}
