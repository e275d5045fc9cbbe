import Foundation

/// One `{{…}}` of a stub template, parsed: what it reads (`query.expand`) and, after
/// `| default: "none"` (or `'none'`), the text that stands in when the request lacks that value.
struct TemplateExpression: Sendable, Hashable {
    /// The kinds of value read from the request by name: `{{query.NAME}}` and the like.
    static let captureKinds: Set<String> = ["path", "query", "header", "form", "json"]
    /// The values that need no name and are always there.
    static let plainValues: Set<String> = ["method", "url", "uuid", "now"]

    /// What it reads, as written before any `|`: `query.expand`, `uuid`.
    let source: String
    /// The text used when the request lacks the value; nil when none is given.
    let fallback: String?
    /// What follows `|` when it is not `default: "TEXT"`, or nil.
    let badFilter: String?

    /// Parses the text between `{{` and `}}`.
    init(parsing text: some StringProtocol) {
        guard let bar = text.firstIndex(of: "|") else {
            (source, fallback, badFilter) = (Self.trimmed(text), nil, nil)
            return
        }
        source = Self.trimmed(text[..<bar])
        let filter = Self.trimmed(text[text.index(after: bar)...])
        var rest = filter[...]
        guard rest.hasPrefix("default") else {
            (fallback, badFilter) = (nil, filter)
            return
        }
        rest = rest.dropFirst("default".count).drop { $0 == " " || $0 == "\t" }
        guard rest.first == ":" else {
            (fallback, badFilter) = (nil, filter)
            return
        }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'", rest.count >= 2, rest.last == quote else {
            (fallback, badFilter) = (nil, filter)
            return
        }
        (fallback, badFilter) = (String(rest.dropFirst().dropLast()), nil)
    }

    /// The kind (`query`) and name (`expand`) of a value read by name; nil for the plain values
    /// and for what the template does not know.
    var capture: (kind: String, name: String)? {
        guard let dot = source.firstIndex(of: "."), Self.captureKinds.contains(String(source[..<dot])) else { return nil }
        return (String(source[..<dot]), String(source[source.index(after: dot)...]))
    }

    /// Whether the template knows what it reads; one it does not know is sent as written.
    var isKnown: Bool { capture != nil || Self.plainValues.contains(source) }

    /// The expression as written without its filter, for messages: `{{query.expand}}`.
    var written: String { "{{\(source)}}" }

    /// The expression with a default, as a message suggests writing it.
    var withDefault: String { "{{\(source) | default: \"…\"}}" }

    private static func trimmed(_ text: some StringProtocol) -> String {
        text.trimmingCharacters(in: .whitespaces)
    }
}
