import Foundation
import TapedeckCore

/// Reads response bodies as Polly.js wrote them, which HAR readers otherwise take as text.
///
/// - Polly 6 and later: `encoding: "base64"`, a JSON array of base64 chunks for a compressed
///   body; read like any HAR.
/// - Polly 4.2.1 to 5: `_isBinary: true` and hex text, or a JSON array of hex chunks for a body
///   with a `Content-Encoding` (the chunks are the raw compressed bytes).
/// - Polly before 4.2.1: the same hex forms without the mark. A body with a `Content-Encoding`
///   given as a JSON array of hex strings is read as chunks; other text is hex when it is all hex
///   digits, its bytes are not UTF-8 (Polly wrote hex only then) and either `size` is half its
///   length or the media type is not text.
struct PollyContent {
    /// The Polly version that wrote the file, such as (1, 3, 1).
    let version: (Int, Int, Int)

    /// The reader for a HAR `creator`, or nil when Polly.js did not write the file.
    init?(creator: HARCreator) {
        guard creator.name == "Polly.JS" else { return nil }
        let numbers = creator.version.split(whereSeparator: { !$0.isNumber }).prefix(3).map { Int($0) ?? 0 }
        version = (numbers.first ?? 0, numbers.count > 1 ? numbers[1] : 0, numbers.count > 2 ? numbers[2] : 0)
    }

    /// Whether this version marks its hex bodies with `_isBinary`.
    private var marksBinary: Bool { version >= (4, 2, 1) }

    /// The raw response bytes when the content is in one of Polly's hex forms; nil when it is text (or base64).
    func bytes(of content: HARContent, contentEncoded: Bool, place: String, file: String?) throws(ToolingError) -> Data? {
        guard content.encoding == nil, let text = content.text, !text.isEmpty else { return nil }
        let marked = content.isBinary == true
        guard marked || !marksBinary else { return nil }
        if text.hasPrefix("["), let chunks = try? JSONDecoder().decode([String].self, from: Data(text.utf8)),
           marked || (contentEncoded && chunks.allSatisfy { Self.hex($0) != nil }) {
            var joined = Data()
            for (number, chunk) in chunks.enumerated() {
                guard let data = Self.hex(chunk) else {
                    throw ToolingError(file: file, kind: .badInput(path: place, message: "chunk \(number) is not hex"))
                }
                joined.append(data)
            }
            return joined
        }
        guard let data = Self.hex(text) else {
            if marked { throw ToolingError(file: file, kind: .badInput(path: place, message: "_isBinary is set but the text is not hex")) }
            return nil
        }
        if marked { return data }
        guard String(validating: data, as: UTF8.self) == nil else { return nil }
        let halfSize = content.size == data.count
        let textual = Self.isTextual(content.mimeType ?? "")
        return halfSize || !textual ? data : nil
    }

    /// The bytes of an even-length string of hex digits; nil for anything else.
    static func hex(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var data = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    /// Whether a media type is text a tool would have written as it is.
    static func isTextual(_ mimeType: String) -> Bool {
        let type = mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type.hasPrefix("text/") || type.hasSuffix("json") || type.hasSuffix("xml") || type.contains("javascript")
            || type == "application/x-www-form-urlencoded"
    }
}
