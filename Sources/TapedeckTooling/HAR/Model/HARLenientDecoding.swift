import Foundation

// Members that HAR defines as strings but that some writers give in another shape: Polly.js
// wrote header values and `mimeType` as arrays of strings (`"value": ["*/*"]`).

extension KeyedDecodingContainer {
    /// Every string a member holds: a string, an array of strings, a number or boolean as text; none when null or absent.
    func decodeStrings(forKey key: Key) throws -> [String] {
        guard contains(key), try !decodeNil(forKey: key) else { return [] }
        if let text = try? decode(String.self, forKey: key) { return [text] }
        if let texts = try? decode([String].self, forKey: key) { return texts }
        if let number = try? decode(Int.self, forKey: key) { return [String(number)] }
        if let number = try? decode(Double.self, forKey: key) { return [String(number)] }
        if let flag = try? decode(Bool.self, forKey: key) { return [String(flag)] }
        throw DecodingError.typeMismatch(String.self, DecodingError.Context(
            codingPath: codingPath + [key], debugDescription: "expected a string or an array of strings"))
    }

    /// A string member, or the first of an array of strings.
    func decodeLenientString(forKey key: Key) throws -> String? {
        try decodeStrings(forKey: key).first
    }
}
