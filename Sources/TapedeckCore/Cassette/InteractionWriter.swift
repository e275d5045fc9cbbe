import Foundation

/// Writes one interaction as the cassette's pretty JSON, byte for byte what `JSONEncoder` writes
/// with `.prettyPrinted, .sortedKeys, .withoutEscapingSlashes` (keys in UTF-8 byte order, two
/// spaces a level, `" : "` between key and value, whole doubles without `.0`), several times
/// faster: the recording proxy encodes every interaction it records. The `Codable` conformance
/// stays the reference, and a test holds the two to the same bytes.
struct InteractionWriter {
    private var out: [UInt8] = []
    /// Whether the container being written has no member yet, innermost last.
    private var isFirst: [Bool] = []
    private let baseIndent: Int
    private let sideFiles: SideFiles?

    /// The JSON of `interaction`, its lines after the first indented by `indent` spaces.
    static func encode(_ interaction: Interaction, indent: Int, sideFiles: SideFiles?) -> Data {
        var writer = InteractionWriter(baseIndent: indent, sideFiles: sideFiles)
        writer.out.reserveCapacity(512 + interaction.request.body.data.count + interaction.response.body.data.count)
        writer.write(interaction)
        return Data(writer.out)
    }

    private init(baseIndent: Int, sideFiles: SideFiles?) {
        self.baseIndent = baseIndent
        self.sideFiles = sideFiles
    }

    // MARK: the cassette's types, keys in sorted order

    private mutating func write(_ interaction: Interaction) {
        beginObject()
        if let chunks = interaction.chunks {
            key("chunks")
            beginArray()
            for chunk in chunks {
                element()
                beginObject()
                key("atMs"); number(chunk.atMs)
                if let text = String(validatingUTF8Data: chunk.data) {
                    key("text"); string(text)
                } else {
                    key("base64"); string(chunk.data.base64EncodedString())
                }
                endObject()
            }
            endArray()
        }
        if let delayMs = interaction.delayMs { key("delayMs"); number(delayMs) }
        if let recordedAt = interaction.recordedAt { key("recordedAt"); string(recordedAt) }
        key("request")
        beginObject()
        body(interaction.request.body)
        key("headers"); headers(interaction.request.headers)
        key("method"); string(interaction.request.method)
        key("url"); string(interaction.request.url)
        endObject()
        key("response")
        beginObject()
        body(interaction.response.body)
        key("headers"); headers(interaction.response.headers)
        key("status"); out.append(contentsOf: String(interaction.response.status).utf8)
        endObject()
        if let timing = interaction.timing {
            key("timing")
            beginObject()
            key("firstByteMs"); number(timing.firstByteMs)
            key("totalMs"); number(timing.totalMs)
            endObject()
        }
        endObject()
    }

    /// The `body` member, absent for an empty body.
    private mutating func body(_ body: Body) {
        guard !body.isEmpty else { return }
        key("body")
        beginObject()
        if let sideFiles, sideFiles.wantsSideFile(for: body.data) {
            key("file"); string(sideFiles.add(body.data))
        } else if body.style == .json, let json = JSONValue(parsing: body.data) {
            key("json"); value(json)
        } else if let text = body.text {
            key("text"); string(text)
        } else {
            key("base64"); string(body.data.base64EncodedString())
        }
        endObject()
    }

    /// The headers as an object from each name to its values in order. ASCII names (all but
    /// odd ones) are sorted and grouped in place; others go through `grouped`, whose dictionary
    /// merges canonically equivalent names as JSONEncoder's output does.
    private mutating func headers(_ headers: HeaderList) {
        let fields = headers.fields
        guard fields.allSatisfy({ $0.name.utf8.allSatisfy { $0 < 0x80 } }) else { return groupedHeaders(headers) }
        let order = fields.indices.sorted { first, second in
            let (a, b) = (fields[first].name.utf8, fields[second].name.utf8)
            return a.elementsEqual(b) ? first < second : a.lexicographicallyPrecedes(b)
        }
        beginObject()
        var previous: String?
        for index in order {
            let field = fields[index]
            if field.name != previous {
                if previous != nil { endArray() }
                key(field.name)
                beginArray()
                previous = field.name
            }
            element()
            string(field.value)
        }
        if previous != nil { endArray() }
        endObject()
    }

    private mutating func groupedHeaders(_ headers: HeaderList) {
        let grouped = headers.grouped
        beginObject()
        for name in Self.sorted(grouped.keys) {
            key(name)
            beginArray()
            for value in grouped[name] ?? [] {
                element()
                string(value)
            }
            endArray()
        }
        endObject()
    }

    private mutating func value(_ json: JSONValue) {
        switch json {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let integer): out.append(contentsOf: String(integer).utf8)
        case .double(let double): number(double)
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for item in elements {
                element()
                value(item)
            }
            endArray()
        case .object(let members):
            beginObject()
            for name in Self.sorted(members.keys) {
                key(name)
                value(members[name] ?? .null)
            }
            endObject()
        }
    }

    // MARK: JSON layout

    private mutating func beginObject() {
        out.append(UInt8(ascii: "{"))
        isFirst.append(true)
    }

    private mutating func endObject() { close(UInt8(ascii: "}")) }

    private mutating func beginArray() {
        out.append(UInt8(ascii: "["))
        isFirst.append(true)
    }

    private mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Ends a container; an empty one is written `{` newline newline indent `}` like JSONEncoder does.
    private mutating func close(_ bracket: UInt8) {
        let wasEmpty = isFirst.removeLast()
        out.append(UInt8(ascii: "\n"))
        if wasEmpty { out.append(UInt8(ascii: "\n")) }
        indent()
        out.append(bracket)
    }

    /// Starts a member of the current object.
    private mutating func key(_ name: String) {
        element()
        string(name)
        out.append(contentsOf: " : ".utf8)
    }

    /// Starts an element of the current container: a comma after the previous one, a new line, the indent.
    private mutating func element() {
        if isFirst[isFirst.count - 1] {
            isFirst[isFirst.count - 1] = false
        } else {
            out.append(UInt8(ascii: ","))
        }
        out.append(UInt8(ascii: "\n"))
        indent()
    }

    private mutating func indent() {
        var count = baseIndent + 2 * isFirst.count
        while count > 0 {
            let run = min(count, Self.spaces.count)
            Self.spaces.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<run])) }
            count -= run
        }
    }

    /// A double as JSONEncoder writes it: Swift's shortest form, without a trailing `.0`.
    private mutating func number(_ value: Double) {
        let text = value.description
        out.append(contentsOf: text.utf8)
        if text.hasSuffix(".0") { out.removeLast(2) }
    }

    /// A JSON string: quote, backslash and control characters escaped, `/` and non-ASCII as
    /// they are; the runs between escapes are copied whole.
    private mutating func string(_ text: String) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices where bytes[index] < 0x20 || bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                escape(bytes[index])
                start = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// One byte that JSON strings escape.
    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
        case 0x0A: out.append(contentsOf: #"\n"#.utf8)
        case 0x0D: out.append(contentsOf: #"\r"#.utf8)
        case 0x09: out.append(contentsOf: #"\t"#.utf8)
        case 0x08: out.append(contentsOf: #"\b"#.utf8)
        case 0x0C: out.append(contentsOf: #"\f"#.utf8)
        case 0..<0x20:
            out.append(contentsOf: #"\u00"#.utf8)
            out.append(Self.hexDigits[Int(byte >> 4)])
            out.append(Self.hexDigits[Int(byte & 0x0F)])
        default: out.append(byte)
        }
    }

    /// Keys in JSONEncoder's order: by their UTF-8 bytes (not `<`, which compares canonical equivalents equal).
    private static func sorted(_ keys: some Collection<String>) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)
}
