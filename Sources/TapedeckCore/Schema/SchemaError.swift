/// A schema that cannot be compiled: a malformed keyword, a `$ref` to nowhere or a `$ref` loop.
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Sendable, Equatable {
        /// A `$ref` (as written) names no place in the document.
        case unknownReference(String)
        /// A `$ref` (as written) leads back to where it is written without looking inside the value,
        /// so checking it would never end (`A: {$ref: B}`, `B: {$ref: A}`).
        case circularReference(String)
        /// A keyword whose value has the wrong form; the text says what it should be.
        case invalidKeyword(String, expected: String)
        /// A `pattern` or `patternProperties` name that is not a regular expression.
        case invalidPattern(String)
        /// Schemas nested deeper than the limit (hostile or broken input).
        case tooDeep(limit: Int)
        /// A value where a schema belongs that is neither an object nor `true`/`false`.
        case notASchema
    }

    /// The JSON pointer of the schema place, such as `#/components/schemas/User/properties/age`.
    public let location: String
    /// What is wrong there.
    public let reason: Reason

    /// Creates an error at a schema place.
    public init(location: String, reason: Reason) {
        self.location = location
        self.reason = reason
    }

    public var description: String {
        let what: String
        switch reason {
        case .unknownReference(let reference):
            what = "$ref \"\(reference)\" points to nothing in the document"
        case .circularReference(let reference):
            what = "$ref \"\(reference)\" is circular: it leads back here without looking inside the value"
        case .invalidKeyword(let keyword, let expected):
            what = "\"\(keyword)\" must be \(expected)"
        case .invalidPattern(let pattern):
            what = "\"\(pattern)\" is not a valid regular expression"
        case .tooDeep(let limit):
            what = "schemas nested deeper than \(limit) levels"
        case .notASchema:
            what = "a schema must be an object, true or false"
        }
        return "schema \(location): \(what)"
    }
}
