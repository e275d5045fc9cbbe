#if GraphQL
/// A pass over a GraphQL document's text, before parsing, that finds where its braces, brackets and
/// parentheses first nest deeper than a limit.
///
/// GraphQLSwift's parser recurses once per nesting level, so a hostile document of 10,000 `{a`
/// overflows the stack and kills the process (as would ``GraphQLCanonicalPrinter``). The scan
/// knows just enough of the grammar to skip what is not punctuation: comments (`#` to the end of
/// the line), strings (`"..."`, with `\` escapes, ending at a line break when unterminated) and
/// block strings (`"""..."""`, with `\"""`). Closers without an opener are left for the parser
/// to refuse.
struct GraphQLNestingScan {
    /// A place in the text, 1-based; the column counts Unicode scalars.
    struct Place: Sendable, Hashable {
        var line: Int
        var column: Int
    }

    /// The most brackets that may stand open at once.
    let limit: Int

    /// The first opening bracket that makes the nesting deeper than ``limit``, or nil when the
    /// document stays within it.
    func firstExcess(in source: String) -> Place? {
        var text = source
        return text.withUTF8 { bytes in scan(bytes) }
    }

    private enum Context {
        case code, comment, string, blockString
    }

    private func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Place? {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var context = Context.code
        var depth = 0
        var line = 1, column = 0
        var index = 0
        // Whether the three bytes from `index` on are `"""`.
        func tripleQuote(at index: Int) -> Bool {
            index + 2 < bytes.count && bytes[index] == quote && bytes[index + 1] == quote && bytes[index + 2] == quote
        }
        while index < bytes.count {
            let byte = bytes[index]
            // A UTF-8 continuation byte is part of the scalar already counted.
            if byte & 0xC0 != 0x80 { column += 1 }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { index += 1 }
                line += 1
                column = 0
                if context == .comment || context == .string { context = .code }
                index += 1
                continue
            }
            switch context {
            case .comment:
                break
            case .string:
                if byte == backslash, index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "\n"), bytes[index + 1] != UInt8(ascii: "\r") {
                    index += 1
                    column += 1
                } else if byte == quote {
                    context = .code
                }
            case .blockString:
                if byte == backslash, tripleQuote(at: index + 1) {
                    index += 3
                    column += 3
                } else if tripleQuote(at: index) {
                    index += 2
                    column += 2
                    context = .code
                }
            case .code:
                switch byte {
                case UInt8(ascii: "#"):
                    context = .comment
                case quote where tripleQuote(at: index):
                    index += 2
                    column += 2
                    context = .blockString
                case quote:
                    context = .string
                case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "("):
                    depth += 1
                    if depth > limit { return Place(line: line, column: column) }
                case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"):
                    depth = max(depth - 1, 0)
                default:
                    break
                }
            }
            index += 1
        }
        return nil
    }
}
#endif
