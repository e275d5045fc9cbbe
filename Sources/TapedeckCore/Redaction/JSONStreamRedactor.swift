import Foundation

/// Redacts a JSON document piece by piece, for a body too large to parse whole (a side file past
/// ``Body/wholeReadLimit``): every value a path names becomes the placeholder string, and every
/// other byte passes as it came. It keeps only what the open containers need (their kind, the
/// member name read last, the element count, how far each path got), at most ``deepest`` of them,
/// so its memory does not grow with the document; a piece may end anywhere, inside a string or a
/// number.
///
/// The paths mean what they mean to ``JSONPath/rewriting(_:_:)``, the whole-body redaction, with
/// one difference on the safe side: a member named twice in one object is redacted both times
/// (a whole-body parse keeps only the last). A document that is not JSON throws ``NotJSON``,
/// and the caller keeps the body as it came, as the whole-body redaction keeps a body that does
/// not parse.
///
/// Feed the pieces in order to ``update(_:)`` and call ``finish()`` once; the outputs joined are
/// the redacted document.
package struct JSONStreamRedactor: Sendable {
    /// Where the bytes stop being JSON.
    package struct NotJSON: Error, CustomStringConvertible, Sendable, Equatable {
        /// The offset of the byte in the document.
        package let offset: Int
        /// What was wrong there.
        package let reason: String

        package var description: String { "not JSON at byte \(offset): \(reason)" }
    }

    /// How far one path got on the way down to a value: it names the value once all its segments matched.
    private struct Progress: Hashable, Sendable {
        var path: Int
        var matched: Int
    }

    /// One segment of a path, with its member name as a number in ``nameNumbers``, so that
    /// following the paths down a document compares numbers and copies no strings.
    private enum Segment: Sendable {
        case member(Int)
        case element(Int)
        case any
        case memberBelow(Int)
    }

    /// One step down from a container: a member (its name's number, nil when no path has that
    /// name) or an element.
    private enum Step {
        case member(Int?)
        case element(Int)
    }

    /// An object or array open around the current byte.
    private struct Container: Sendable {
        let isObject: Bool
        /// How far each path got at this container.
        let progress: [Progress]
        /// The next element's index, in an array.
        var count = 0
        /// The number of the member name read last, in an object; nil when no path has that name.
        var key: Int?
    }

    /// What the next byte outside a string or literal may be.
    private enum Expecting: Sendable {
        case value, valueOrClose, key, keyOrClose, colon, commaOrClose, nothing
    }

    /// The token the next byte continues, if any.
    private enum Token: Sendable {
        /// Between tokens.
        case outside
        case string(escaped: Bool)
        case key(escaped: Bool)
        /// A number, `true`, `false` or `null`.
        case literal
    }

    /// The longest member name kept for comparison; a longer one matches no path's name.
    private static let longestKey = 1024
    /// The most containers open at once: with ``longestKey``, what bounds the memory held.
    static let deepest = 10_000

    /// Each path as written, for ``redactedPaths``.
    private let pathNames: [String]
    /// Each path's segments, names numbered.
    private let segments: [[Segment]]
    /// The number of each member name a path has.
    private let nameNumbers: [String: Int]
    private let placeholder: [UInt8]
    private var stack: [Container] = []
    private var expecting = Expecting.value
    private var token = Token.outside
    private var keyBytes: [UInt8] = []
    private var literal: [UInt8] = []
    /// While a redacted value is being left out: the depth it started at.
    private var omittedDepth: Int?
    private var offset = 0
    private var output: [UInt8] = []
    /// The paths, as written, that named a value so far, each once.
    package private(set) var redactedPaths: [String] = []

    /// Creates a redactor replacing what `paths` name by the JSON string `placeholder`.
    package init(paths: [JSONPath], placeholder: String = Redactor.placeholder) {
        pathNames = paths.map(\.description)
        var numbers: [String: Int] = [:]
        func number(_ name: String) -> Int {
            if let known = numbers[name] { return known }
            numbers[name] = numbers.count
            return numbers.count - 1
        }
        segments = paths.map { path in
            path.segments.map { segment in
                switch segment {
                case .key(let name): return .member(number(name))
                case .index(let index): return .element(index)
                case .wildcard: return .any
                case .descendant(let name): return .memberBelow(number(name))
                }
            }
        }
        nameNumbers = numbers
        self.placeholder = Array(JSONValue.string(placeholder).compactData)
    }

    /// Redacts the next piece of the document; returns the bytes to write for it.
    package mutating func update(_ piece: Data) throws(NotJSON) -> Data {
        output.removeAll(keepingCapacity: true)
        output.reserveCapacity(piece.count)
        var failure: NotJSON?
        piece.withUnsafeBytes { bytes in
            var index = 0
            while index < bytes.count {
                // Most of a large document is the inside of strings: those bytes go (or are left out) together.
                let run = plainStringRun(in: bytes, from: index)
                if run > 0 {
                    let plain = UnsafeRawBufferPointer(rebasing: bytes[index..<index + run])
                    if omittedDepth == nil { output.append(contentsOf: plain) }
                    if case .key = token { keyBytes.append(contentsOf: plain.prefix(max(0, Self.longestKey + 1 - keyBytes.count))) }
                    index += run
                    offset += run
                    continue
                }
                do throws(NotJSON) {
                    try consume(bytes[index])
                } catch {
                    failure = error
                    return
                }
                index += 1
                offset += 1
            }
        }
        if let failure { throw failure }
        return Data(output)
    }

    /// How many bytes from `start` are inside a string (a value or a member name) and neither end it nor escape.
    private func plainStringRun(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        switch token {
        case .string(escaped: false), .key(escaped: false): break
        default: return 0
        }
        var end = start
        while end < bytes.count && bytes[end] != Self.quote && bytes[end] != Self.backslash { end += 1 }
        return end - start
    }

    /// Ends the document; returns the last bytes to write. Throws when the document is incomplete.
    package mutating func finish() throws(NotJSON) -> Data {
        output.removeAll(keepingCapacity: true)
        if case .literal = token { try endLiteral() }
        guard case .outside = token, expecting == .nothing else { throw NotJSON(offset: offset, reason: "the document ends early") }
        return Data(output)
    }

    // MARK: reading

    private mutating func consume(_ byte: UInt8) throws(NotJSON) {
        switch token {
        case .string(let escaped):
            emit(byte)
            if escaped {
                token = .string(escaped: false)
            } else if byte == Self.backslash {
                token = .string(escaped: true)
            } else if byte == Self.quote {
                token = .outside
                valueEnded()
            }
            return
        case .key(let escaped):
            emit(byte)
            if !escaped && byte == Self.quote {
                token = .outside
                if let name = memberName() {
                    stack[stack.count - 1].key = nameNumbers[name]
                } else {
                    stack[stack.count - 1].key = nil
                }
                expecting = .colon
                return
            }
            if keyBytes.count <= Self.longestKey { keyBytes.append(byte) }
            token = .key(escaped: !escaped && byte == Self.backslash)
            return
        case .literal:
            if Self.isLiteralByte(byte) {
                try continueLiteral(byte)
                return
            }
            try endLiteral()  // and read this byte as what follows the literal
        case .outside:
            break
        }
        if Self.isWhitespace(byte) {
            emit(byte)
            return
        }
        switch expecting {
        case .value:
            try beginValue(byte)
        case .valueOrClose:
            if byte == Self.closeBracket { close(byte) } else { try beginValue(byte) }
        case .keyOrClose where byte == Self.closeBrace:
            close(byte)
        case .key, .keyOrClose:
            guard byte == Self.quote else { throw notJSON("expected a member name") }
            emit(byte)
            keyBytes.removeAll(keepingCapacity: true)
            token = .key(escaped: false)
        case .colon:
            guard byte == Self.colon else { throw notJSON("expected :") }
            emit(byte)
            expecting = .value
        case .commaOrClose:
            let isObject = stack[stack.count - 1].isObject
            if byte == Self.comma {
                emit(byte)
                expecting = isObject ? .key : .value
            } else if byte == (isObject ? Self.closeBrace : Self.closeBracket) {
                close(byte)
            } else {
                throw notJSON(isObject ? "expected , or }" : "expected , or ]")
            }
        case .nothing:
            throw notJSON("more after the document")
        }
    }

    /// Starts the value `byte` opens: left out, the placeholder written instead, when a path names it.
    private mutating func beginValue(_ byte: UInt8) throws(NotJSON) {
        let opensContainer = byte == Self.openBrace || byte == Self.openBracket
        var progress: [Progress] = []
        if omittedDepth == nil {
            let (named, next) = stack.isEmpty
                ? Self.startAtRoot(segments)
                : Self.advance(stack[stack.count - 1], along: segments, gathering: opensContainer)
            if let named {
                let path = pathNames[named]
                if !redactedPaths.contains(path) { redactedPaths.append(path) }
                output.append(contentsOf: placeholder)
                omittedDepth = stack.count
            }
            progress = next
        }
        if let top = stack.indices.last, !stack[top].isObject { stack[top].count += 1 }
        switch byte {
        case _ where opensContainer:
            guard stack.count < Self.deepest else { throw notJSON("nested more than \(Self.deepest) deep") }
            emit(byte)
            let isObject = byte == Self.openBrace
            stack.append(Container(isObject: isObject, progress: progress))
            expecting = isObject ? .keyOrClose : .valueOrClose
        case Self.quote:
            emit(byte)
            token = .string(escaped: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            literal.removeAll(keepingCapacity: true)
            token = .literal
            try continueLiteral(byte)
        default:
            throw notJSON("expected a value")
        }
    }

    /// The document itself: the first path that names it (`$`), or every path at its start.
    private static func startAtRoot(_ segments: [[Segment]]) -> (named: Int?, progress: [Progress]) {
        if let whole = segments.firstIndex(where: \.isEmpty) { return (whole, []) }
        return (nil, segments.indices.map { Progress(path: $0, matched: 0) })
    }

    /// One step down from `container`, to its next member or element, along each path's `segments`
    /// (static, so that nothing copies the redactor): the first path that names the
    /// value there, if one does, and otherwise where each path stands at it, gathered only when
    /// `gathering` (the value is itself a container; a string or a number needs no more). A path kept
    /// in a container never has all its segments matched: it would have named the container.
    private static func advance(_ container: Container, along segments: [[Segment]],
                                gathering: Bool) -> (named: Int?, progress: [Progress]) {
        let step = container.isObject ? Step.member(container.key) : Step.element(container.count)
        var next: [Progress] = []
        /// Notes that a path got this far; true when that is all its segments.
        func reached(_ progress: Progress) -> Bool {
            if progress.matched == segments[progress.path].count { return true }
            if gathering && !next.contains(progress) { next.append(progress) }
            return false
        }
        for progress in container.progress {
            let further = Progress(path: progress.path, matched: progress.matched + 1)
            switch (segments[progress.path][progress.matched], step) {
            case let (.member(name), .member(key?)) where key == name:
                if reached(further) { return (progress.path, []) }
            case let (.element(index), .element(position)) where index == position:
                if reached(further) { return (progress.path, []) }
            case (.any, _):
                if reached(further) { return (progress.path, []) }
            case let (.memberBelow(name), step):
                _ = reached(progress)  // still looking further down
                if case .member(let key?) = step, key == name, reached(further) { return (progress.path, []) }
            default:
                break
            }
        }
        return (nil, next)
    }

    /// Reads one byte of a number or of `true`, `false` or `null`: a word is kept to be checked
    /// whole at its end, a number only by its first byte (each later one is checked as it comes).
    private mutating func continueLiteral(_ byte: UInt8) throws(NotJSON) {
        emit(byte)
        if let first = literal.first, Self.isNumberByte(first) {
            guard Self.isNumberByte(byte) else { throw notJSON("not a number") }
            return
        }
        guard literal.count < 5 else { throw notJSON("not true, false or null") }
        literal.append(byte)
    }

    private mutating func endLiteral() throws(NotJSON) {
        token = .outside
        if let first = literal.first, !Self.isNumberByte(first), !Self.words.contains(literal) {
            throw notJSON("not true, false or null")
        }
        valueEnded()
    }

    private mutating func close(_ byte: UInt8) {
        emit(byte)
        stack.removeLast()
        valueEnded()
    }

    private mutating func valueEnded() {
        if omittedDepth == stack.count { omittedDepth = nil }
        expecting = stack.isEmpty ? .nothing : .commaOrClose
    }

    /// The member name just read, unescaped; nil when it is too long to be any path's.
    private func memberName() -> String? {
        guard keyBytes.count <= Self.longestKey else { return nil }
        guard keyBytes.contains(Self.backslash) else { return String(decoding: keyBytes, as: UTF8.self) }
        let quoted = Data([Self.quote] + keyBytes + [Self.quote])
        return (try? JSONSerialization.jsonObject(with: quoted, options: .fragmentsAllowed)) as? String
    }

    private mutating func emit(_ byte: UInt8) {
        if omittedDepth == nil { output.append(byte) }
    }

    private func notJSON(_ reason: String) -> NotJSON {
        NotJSON(offset: offset, reason: reason)
    }

    // MARK: bytes

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), colon = UInt8(ascii: ":")
    private static let comma = UInt8(ascii: ","), openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
    private static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
    private static let words = [Array("true".utf8), Array("false".utf8), Array("null".utf8)]

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// A byte that may continue a number or a word: what ends a literal is anything else.
    private static func isLiteralByte(_ byte: UInt8) -> Bool {
        isNumberByte(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }
}
