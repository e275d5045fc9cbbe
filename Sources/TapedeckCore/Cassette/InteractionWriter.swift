import Foundation

/// Writes one interaction as the cassette's pretty JSON, byte for byte what `JSONEncoder` writes
/// with `.prettyPrinted, .sortedKeys, .withoutEscapingSlashes` (keys in UTF-8 byte order, two
/// spaces a level, `" : "` between key and value, whole doubles without `.0`), several times
/// faster: the recording proxy encodes every interaction it records. The `Codable` conformance
/// stays the reference, and a test holds the two to the same bytes.
struct InteractionWriter {
    private var out: [UInt8] = []
    /// Whether the innermost open container has no member yet; the outer ones' flags wait on
    /// the call stack (see ``open(_:)``).
    private var isFirst = true
    /// How many containers are open.
    private var depth = 0
    private let baseIndent: Int
    private let sideFiles: SideFiles?

    /// The JSON of `interaction`, its lines after the first indented by `indent` spaces.
    static func encode(_ interaction: Interaction, indent: Int, sideFiles: SideFiles?) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(512 + interaction.request.body.inMemoryCount + interaction.response.body.inMemoryCount)
        encode(interaction, indent: indent, sideFiles: sideFiles, into: &out)
        return Data(out)
    }

    /// Appends the JSON of `interaction` to `out`, its lines after the first indented by `indent` spaces.
    static func encode(_ interaction: Interaction, indent: Int, sideFiles: SideFiles?, into out: inout [UInt8]) {
        var writer = InteractionWriter(baseIndent: indent, sideFiles: sideFiles)
        swap(&writer.out, &out)
        writer.write(interaction)
        swap(&writer.out, &out)
    }

    private init(baseIndent: Int, sideFiles: SideFiles?) {
        self.baseIndent = baseIndent
        self.sideFiles = sideFiles
    }

    // MARK: the cassette's types, keys in sorted order

    private mutating func write(_ interaction: Interaction) {
        let interaction = GRPCCall.foldingChunks(interaction)
        object { writer in
            if let chunks = interaction.chunks {
                writer.key(InteractionCodingKey.chunks)
                writer.array { writer in
                    for chunk in chunks {
                        writer.element()
                        writer.object { writer in
                            writer.key(ChunkCodingKey.atMs); writer.number(chunk.atMs)
                            if !writer.text(chunk.data, key: ChunkCodingKey.text) {
                                writer.key(ChunkCodingKey.base64); writer.string(chunk.data.base64EncodedString())
                            }
                        }
                    }
                }
            }
            if let delayMs = interaction.delayMs { writer.key(InteractionCodingKey.delayMs); writer.number(delayMs) }
            if let httpVersion = interaction.httpVersion { writer.key(InteractionCodingKey.httpVersion); writer.string(httpVersion) }
            if let recordedAt = interaction.recordedAt { writer.key(InteractionCodingKey.recordedAt); writer.string(recordedAt) }
            writer.key(InteractionCodingKey.request)
            writer.object { writer in
                writer.body(interaction.request.body)
                writer.key(RequestCodingKey.headers); writer.headers(interaction.request.headers)
                writer.key(RequestCodingKey.method); writer.string(interaction.request.method)
                writer.key(RequestCodingKey.url); writer.string(interaction.request.url)
            }
            writer.key(InteractionCodingKey.response)
            writer.object { writer in
                writer.body(interaction.response.body)
                writer.key(ResponseCodingKey.headers); writer.headers(interaction.response.headers)
                writer.key(ResponseCodingKey.status); writer.integer(Int64(interaction.response.status))
                if let trailers = interaction.response.trailers { writer.key(ResponseCodingKey.trailers); writer.headers(trailers) }
            }
            if let timing = interaction.timing {
                writer.key(InteractionCodingKey.timing)
                writer.object { writer in
                    writer.key(TimingCodingKey.firstByteMs); writer.number(timing.firstByteMs)
                    writer.key(TimingCodingKey.totalMs); writer.number(timing.totalMs)
                }
            }
            if let messages = interaction.websocket {
                writer.key(InteractionCodingKey.websocket)
                writer.array { writer in
                    for message in messages {
                        writer.element()
                        writer.webSocketMessage(message)
                    }
                }
            }
        }
    }

    /// One WebSocket message, keys in sorted order: atMs < base64 < close < from < reason < text.
    private mutating func webSocketMessage(_ message: WebSocketMessage) {
        object { writer in
            writer.key(WebSocketMessageCodingKey.atMs); writer.number(message.atMs)
            if case .binary(let data) = message.content {
                writer.key(WebSocketMessageCodingKey.base64); writer.string(data.base64EncodedString())
            }
            if case .close(let code, _) = message.content {
                writer.key(WebSocketMessageCodingKey.close)
                if let code { writer.integer(Int64(code)) } else { writer.value(.null) }
            }
            writer.key(WebSocketMessageCodingKey.from); writer.string(message.from.rawValue)
            if case .close(_, let reason) = message.content, !reason.isEmpty {
                writer.key(WebSocketMessageCodingKey.reason); writer.string(reason)
            }
            if case .text(let text) = message.content { writer.key(WebSocketMessageCodingKey.text); writer.string(text) }
        }
    }

    /// The `body` member, absent for an empty body.
    private mutating func body(_ body: Body) {
        guard !body.isEmpty else { return }
        key(RequestCodingKey.body)  // the same name in a response
        object { writer in
            // Keys in sorted order: base64 < encoded < file < text.
            if let path = writer.sideFiles?.place(body) {
                if body.isEncoded { writer.encodedMark() }
                writer.key(BodyCodingKey.file); writer.string(path)
            } else if body.style == .json, !body.isEncoded, let json = JSONValue(parsing: body.data) {
                writer.key(BodyCodingKey.json); writer.value(json)
            } else if body.style == .grpc, !body.isEncoded, let messages = GRPCMessage.split(body.data) {
                writer.key(BodyCodingKey.grpc)
                writer.array { writer in
                    for message in GRPCCall.timed(messages, body.messageTimes) {
                        writer.element()
                        writer.object { writer in
                            if let atMs = message.atMs { writer.key(GRPCMessageCodingKey.atMs); writer.number(atMs) }
                            writer.key(GRPCMessageCodingKey.base64); writer.string(message.bytes.base64EncodedString())
                            writer.key(GRPCMessageCodingKey.compressed); writer.out.append(contentsOf: (message.compressed ? "true" : "false").utf8)
                        }
                    }
                }
            } else if body.isEncoded {
                if String(validatingUTF8Data: body.data) != nil {
                    writer.encodedMark()
                    _ = writer.text(body.data, key: BodyCodingKey.text)
                } else {
                    writer.key(BodyCodingKey.base64); writer.string(body.data.base64EncodedString())
                    writer.encodedMark()
                }
            } else if !writer.text(body.data, key: BodyCodingKey.text) {
                writer.key(BodyCodingKey.base64); writer.string(body.data.base64EncodedString())
            }
        }
    }

    /// The `"encoded": true` mark of a body still in its Content-Encoding.
    private mutating func encodedMark() {
        key(BodyCodingKey.encoded); out.append(contentsOf: "true".utf8)
    }

    /// Writes the member `key` with `data` as a string when it is valid UTF-8; returns false, writing nothing, otherwise.
    private mutating func text(_ data: Data, key name: some CodingKey) -> Bool {
        let isASCII = data.withUnsafeBytes { bytes in bytes.allSatisfy { $0 < 0x80 } }
        if isASCII {
            key(name)
            data.withUnsafeBytes { string(UnsafeBufferPointer(start: $0.baseAddress?.assumingMemoryBound(to: UInt8.self), count: $0.count)) }
            return true
        }
        guard let text = String(validatingUTF8Data: data) else { return false }
        key(name)
        string(text)
        return true
    }

    /// The headers as an object from each name to its values in order. ASCII names (all but
    /// odd ones) are sorted and grouped in place; others go through `grouped`, whose dictionary
    /// merges canonically equivalent names as JSONEncoder's output does.
    private mutating func headers(_ headers: HeaderList) {
        let fields = headers.fields
        guard fields.allSatisfy({ $0.name.utf8.allSatisfy { $0 < 0x80 } }) else { return groupedHeaders(headers) }
        let order = fields.count < 2 ? Array(fields.indices) : fields.indices.sorted { first, second in
            let order = Self.compareBytes(fields[first].name, fields[second].name)
            return order == 0 ? first < second : order < 0
        }
        object { writer in
            var previous: String?
            for index in order {
                let field = fields[index]
                if field.name != previous {
                    if previous != nil { writer.close(UInt8(ascii: "]"), outer: false) }
                    writer.key(escaping: field.name)
                    writer.open(UInt8(ascii: "["))
                    previous = field.name
                }
                writer.element()
                writer.string(field.value)
            }
            if previous != nil { writer.close(UInt8(ascii: "]"), outer: false) }
        }
    }

    private mutating func groupedHeaders(_ headers: HeaderList) {
        let grouped = headers.grouped
        object { writer in
            for name in Self.sorted(grouped.keys) {
                writer.key(escaping: name)
                writer.array { writer in
                    for value in grouped[name] ?? [] {
                        writer.element()
                        writer.string(value)
                    }
                }
            }
        }
    }

    private mutating func value(_ json: JSONValue) {
        switch json {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let integer): self.integer(integer)
        case .double(let double): number(double)
        case .string(let text): string(text)
        case .array(let elements):
            array { writer in
                for item in elements {
                    writer.element()
                    writer.value(item)
                }
            }
        case .object(let members):
            object { writer in
                for name in Self.sorted(members.keys) {
                    writer.key(escaping: name)
                    writer.value(members[name] ?? .null)
                }
            }
        }
    }

    // MARK: JSON layout

    /// An object whose members `members` writes.
    private mutating func object(_ members: (inout Self) -> Void) {
        let outer = open(UInt8(ascii: "{"))
        members(&self)
        close(UInt8(ascii: "}"), outer: outer)
    }

    /// An array whose elements `elements` writes.
    private mutating func array(_ elements: (inout Self) -> Void) {
        let outer = open(UInt8(ascii: "["))
        elements(&self)
        close(UInt8(ascii: "]"), outer: outer)
    }

    /// Opens a container; returns the enclosing container's `isFirst`, for ``close(_:outer:)``.
    @discardableResult
    private mutating func open(_ bracket: UInt8) -> Bool {
        out.append(bracket)
        depth += 1
        defer { isFirst = true }
        return isFirst
    }

    /// Ends a container; an empty one is written `{` newline newline indent `}` like JSONEncoder does.
    private mutating func close(_ bracket: UInt8, outer: Bool) {
        if isFirst { out.append(UInt8(ascii: "\n")) }
        depth -= 1
        newLine()
        out.append(bracket)
        isFirst = outer
    }

    /// Starts a member of the current object named by one of the format's keys (CassetteKeys.swift),
    /// none of which needs escaping.
    private mutating func key(_ name: some CodingKey) {
        element()
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: name.stringValue.utf8)
        out.append(contentsOf: Self.keyEnd)
    }

    /// Starts a member of the current object whose name may need escaping.
    private mutating func key(escaping name: String) {
        element()
        string(name)
        out.append(contentsOf: Self.keyEnd[1...])
    }

    /// Starts an element of the current container: a comma after the previous one, a new line, the indent.
    private mutating func element() {
        if isFirst {
            isFirst = false
        } else {
            out.append(UInt8(ascii: ","))
        }
        newLine()
    }

    /// A new line and the indent of the current depth.
    private mutating func newLine() {
        var count = 1 + baseIndent + 2 * depth
        Self.newLineAndSpaces.withUnsafeBufferPointer { run in
            out.append(contentsOf: UnsafeBufferPointer(rebasing: run[..<min(count, run.count)]))
            count -= run.count
            while count > 0 {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: run[1..<min(count + 1, run.count)]))
                count -= run.count - 1
            }
        }
    }

    // One integer type rather than any: `String(_:)` is then specialized; the generic one cost
    // about twice as much (measured with the status of every recorded exchange).
    private mutating func integer(_ value: Int64) {
        out.append(contentsOf: String(value).utf8)
    }

    /// A double as JSONEncoder writes it: Swift's shortest form, without a trailing `.0`.
    private mutating func number(_ value: Double) {
        let text = value.description
        out.append(contentsOf: text.utf8)
        if text.hasSuffix(".0") { out.removeLast(2) }
    }

    private mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string($0) }
    }

    /// A JSON string: quote, backslash and control characters escaped, `/` and non-ASCII as
    /// they are; the runs between escapes are copied whole.
    private mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) {
        out.append(UInt8(ascii: "\""))
        var start = 0
        for index in bytes.indices where bytes[index] < 0x20 || bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "\\") {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            escape(bytes[index])
            start = index + 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
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
        keys.sorted { compareBytes($0, $1) < 0 }
    }

    /// Orders two strings by their UTF-8 bytes, as JSONEncoder sorts keys: negative, zero or positive.
    private static func compareBytes(_ a: String, _ b: String) -> Int {
        let contiguous = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : Int(memcmp(a.baseAddress!, b.baseAddress!, common))
                return order != 0 ? order : a.count - b.count
            }
        }
        if let order = contiguous ?? nil { return order }
        return a.utf8.elementsEqual(b.utf8) ? 0 : a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    /// What follows a member's name: its closing quote, the colon and its spaces.
    private static let keyEnd = Array("\" : ".utf8)
    private static let newLineAndSpaces = [UInt8(ascii: "\n")] + [UInt8](repeating: UInt8(ascii: " "), count: 64)
}
