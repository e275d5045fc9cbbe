import Foundation
import TapedeckCore

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

    /// How many bytes of a piece are read again at the start of the next, so that a secret cut by
    /// a piece's end is found whole: longer than any credential these patterns name.
    static let overlap = 4096

    /// Every distinct secret shape in a body that is UTF-8 text: read whole, or, a side file too
    /// large for that (past ``Body/wholeReadLimit``), piece by piece.
    func scan(_ body: Body) throws(SideFileError) -> [Hit] {
        if let file = body.file, !body.isReadableWhole { return try scan(file) }
        return body.text.map(scan) ?? []
    }

    /// Every distinct secret shape in a side file, read piece by piece (each with the end of the
    /// one before, ``overlap``); a file that is not UTF-8 text is not scanned.
    private func scan(_ file: BodyFile) throws(SideFileError) -> [Hit] {
        var found: [String: Hit] = [:]
        var carried = Data()
        var isText = true
        try file.read(pieceSize: 1 << 20) { piece in
            guard isText else { return }
            let bytes = carried + piece
            // A character cut by the piece's end goes into the next piece whole.
            let cut = Self.incompleteCharacterLength(atEndOf: bytes)
            guard let text = String(validating: bytes.dropLast(cut), as: UTF8.self) else { isText = false; return }
            for hit in scan(text) where found[hit.name] == nil { found[hit.name] = hit }
            carried = bytes.suffix(Self.overlap + cut)
            // The overlap starts on a character's first byte.
            while let first = carried.first, first & 0xC0 == 0x80 { carried.removeFirst() }
        }
        return compiled.compactMap { pattern, _ in found[pattern.name] }
    }

    /// How many bytes at the end of `bytes` begin a UTF-8 character that is not complete.
    private static func incompleteCharacterLength(atEndOf bytes: Data) -> Int {
        for back in 1...3 where back <= bytes.count {
            let byte = bytes[bytes.endIndex - back]
            guard byte & 0xC0 == 0x80 else {
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return length > back ? back : 0
            }
        }
        return 0
    }

    /// The first few characters and an ellipsis, so a report never repeats a whole secret.
    static func preview(_ value: String) -> String {
        let shown = value.prefix(min(10, max(4, value.count / 3)))
        return "\(shown)…"
    }
}
