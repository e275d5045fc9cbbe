import Foundation

/// A JSON Pointer (RFC 6901): the place of a schema inside its document, as a `$ref` writes it after `#`.
struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    /// The unescaped reference tokens, outermost first.
    var tokens: [String]

    /// The document itself.
    static let root = JSONPointer(tokens: [])

    init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Parses `""`, `"/a/b"`, `"#"` or `"#/a/b"`; nil when the text is not a pointer.
    /// After `#` the text is a URI fragment, so percent escapes (`%7B`) are decoded first.
    init?(_ text: String) {
        var rest = Substring(text)
        if rest.first == "#" {
            guard let decoded = String(rest.dropFirst()).removingPercentEncoding else { return nil }
            rest = Substring(decoded)
        }
        if rest.isEmpty {
            tokens = []
            return
        }
        guard rest.first == "/" else { return nil }
        tokens = rest.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { token in
            token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    /// This pointer with one more token.
    func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
    }

    /// This pointer with an array index as one more token.
    func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// The value this pointer names inside `document`, or nil when there is none.
    func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case .object(let members):
                guard let member = members[token] else { return nil }
                current = member
            case .array(let elements):
                // RFC 6901: decimal digits without a leading zero.
                guard let index = Int(token), String(index) == token, elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// `#/components/schemas/User`: the form a `$ref` uses, with `~` and `/` escaped inside tokens.
    var description: String {
        "#" + tokens.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined()
    }
}
