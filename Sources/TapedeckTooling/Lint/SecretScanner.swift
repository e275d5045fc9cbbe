import Foundation

/// Finds credential shapes in text with ``SecretPattern``s; one scanner per lint run.
struct SecretScanner {
    /// A secret found in a piece of text.
    struct Hit: Hashable {
        /// The pattern's name.
        var name: String
        /// The start of the value, enough to find it, never the whole secret.
        var preview: String
    }

    private let compiled: [(SecretPattern, NSRegularExpression)]

    init(patterns: [SecretPattern] = SecretPattern.all) {
        compiled = patterns.compactMap { pattern in
            (try? NSRegularExpression(pattern: pattern.pattern)).map { (pattern, $0) }
        }
    }

    /// Every distinct secret shape in the text, in pattern order.
    func scan(_ text: String) -> [Hit] {
        guard !text.isEmpty else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        var hits: [Hit] = []
        for (pattern, expression) in compiled {
            for match in expression.matches(in: text, range: range) {
                guard let matchRange = Range(match.range, in: text) else { continue }
                let value = String(text[matchRange])
                guard pattern.confirm(value) else { continue }
                hits.append(Hit(name: pattern.name, preview: Self.preview(value)))
                break
            }
        }
        return hits
    }

    /// The first few characters and an ellipsis, so a report never repeats a whole secret.
    static func preview(_ value: String) -> String {
        let shown = value.prefix(min(10, max(4, value.count / 3)))
        return "\(shown)…"
    }
}
