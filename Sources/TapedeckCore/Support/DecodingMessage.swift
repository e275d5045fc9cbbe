import Foundation

/// A decoding failure's message as a person reads it, in the project's words: what was expected
/// and what the file holds there (`expected an integer, found the string "x"`), never the
/// decoder's own (`Expected to decode Int but found a string instead.`). Foundation's messages
/// also quote the offending value whole, so one long value (70 KB of text where `"server"` or
/// `"client"` was expected) made an error line that long; a message is cut, saying how long it was.
package enum DecodingMessage {
    /// The most characters of a message shown.
    package static let limit = 300

    /// The most characters of a found string quoted in a message.
    static let quotedLimit = 40

    /// `message`, cut to ``limit`` characters when longer.
    package static func shortened(_ message: String) -> String {
        guard message.count > limit else { return message }
        return String(message.prefix(limit)) + "… (\(message.count) characters in all)"
    }

    /// A value of the wrong type (or null where a value must be) at `codingPath` of `data`:
    /// `expected an array, found an object`; at the top level, the document's name and shape
    /// come first (`cassette: expected an object {"version": 1, "interactions": [...]}, found an
    /// array`), unless `document` is nil (a piece of a larger one). What the project's own decoding
    /// said was expected (`said`, when it is not Foundation's `Expected to decode ...`) is kept.
    /// Nil when the value cannot be found in `data` (the decoder's message is then kept).
    package static func mismatch(expected type: Any.Type, said: String, at codingPath: [CodingKey], in data: Data,
                                 document: JSONDocumentKind?) -> String? {
        guard let value = JSONValue(parsing: data).flatMap({ value(at: codingPath, in: $0) }) else { return nil }
        // Foundation's messages begin with a capital (`Expected to decode`, `Cannot get value`); the project's do not.
        let foundation = said.first?.isUppercase ?? true
        let expected = foundation ? "expected \(kind(of: type))" : shortened(said)
        guard codingPath.isEmpty, let document else { return "\(expected), found \(describe(value))" }
        let shape = foundation && kind(of: type) == "an object" ? " \(document.shape)" : ""
        return "\(document.name): \(expected)\(shape), found \(describe(value))"
    }

    /// What a value of `type` is called: `an object`, `an array`, `a string`, `an integer`.
    static func kind(of type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Dictionary") { return "an object" }
        if name.hasPrefix("Array") { return "an array" }
        switch name {
        case "String", "Substring", "Character", "URL": return "a string"
        case "Bool": return "true or false"
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64": return "an integer"
        case "Double", "Float", "Decimal": return "a number"
        default: return "a value of type \(name)"
        }
    }

    /// The value at `codingPath` (object keys and array indices) in `root`.
    static func value(at codingPath: [CodingKey], in root: JSONValue) -> JSONValue? {
        var current = root
        for key in codingPath {
            switch current {
            case .object(let members):
                guard let member = members[key.stringValue] else { return nil }
                current = member
            case .array(let elements):
                guard let index = key.intValue, elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// A found value as a message names it: `an array`, `null`, `the number 12`, `the string "x"`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return "\(flag)"
        case .integer, .double: return "the number \(value.summary)"
        case .string(let text):
            let shown = text.count > quotedLimit ? String(text.prefix(quotedLimit)) + "…" : text
            return "the string \(JSONValue.string(shown).summary)"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
