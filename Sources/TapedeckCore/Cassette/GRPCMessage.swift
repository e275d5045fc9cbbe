import Foundation

/// One gRPC message as a cassette stores it: a gRPC body is written as its messages,
/// `{"grpc": [{"base64": "...", "compressed": false}, ...]}`, one entry per length-prefixed message
/// (SPEC section 12), and held in memory as the bytes on the wire (a flag byte, a 4-byte
/// big-endian length, the message), so matching and replay see exactly what was sent.
package struct GRPCMessage: Sendable, Hashable {
    /// The message's bytes (its protobuf encoding, usually).
    package var bytes: Data
    /// The wire's compressed flag: the message came compressed (`grpc-encoding`), and is held
    /// decompressed (``GRPCCall/decompressed(_:encoding:)``).
    package var compressed: Bool
    /// When a streamed answer's message came, in milliseconds from the answer's first byte (SPEC 12);
    /// nil for a request's messages and a single answer.
    package var atMs: Double? = nil

    /// A message and its flag.
    package init(bytes: Data, compressed: Bool, atMs: Double? = nil) {
        self.bytes = bytes
        self.compressed = compressed
        self.atMs = atMs
    }

    /// The length of the first message framed at the start of `data`, prefix included; nil until
    /// its prefix and all its bytes are there (a message still arriving).
    package static func framedLength(atStartOf data: Data) -> Int? {
        guard data.count >= 5 else { return nil }
        let length = declaredLength(in: data, prefixAt: data.startIndex)
        return data.count - 5 >= length ? 5 + length : nil
    }

    /// The messages framed in `data`; nil when the framing does not hold (a length past the end, a
    /// flag other than 0 or 1), so such a body is written as plain bytes instead.
    package static func split(_ data: Data) -> [GRPCMessage]? {
        try? parse(data).get()
    }

    /// What is wrong with the framing of `bytes`, for the client that sent it; nil when it holds.
    /// Reads the prefixes only: nothing is copied.
    package static func framingProblem<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> String? where Bytes.Index == Int {
        walk(bytes) { _, _ in }?.description
    }

    private struct FramingProblem: Error, CustomStringConvertible {
        let description: String
    }

    private static func parse(_ data: Data) -> Result<[GRPCMessage], FramingProblem> {
        var messages: [GRPCMessage] = []
        if let problem = walk(data, each: { compressed, range in
            messages.append(GRPCMessage(bytes: Data(data[range]), compressed: compressed))
        }) {
            return .failure(problem)
        }
        return .success(messages)
    }

    /// Follows the length prefixes of `bytes`, giving each message's flag and place to `each`;
    /// returns what is wrong with the framing, nil when it holds to the end.
    private static func walk<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, each: (_ compressed: Bool, _ range: Range<Int>) -> Void)
        -> FramingProblem? where Bytes.Index == Int {
        var position = bytes.startIndex
        var number = 0
        while position < bytes.endIndex {
            number += 1
            guard bytes.endIndex - position >= 5 else {
                return FramingProblem(description: "message \(number) has \(bytes.endIndex - position) bytes of its 5-byte prefix")
            }
            guard bytes[position] <= 1 else {
                return FramingProblem(description: "message \(number)'s compressed flag is \(bytes[position]), not 0 or 1")
            }
            let length = declaredLength(in: bytes, prefixAt: position)
            let start = position + 5
            guard length <= bytes.endIndex - start else {
                return FramingProblem(description: "message \(number)'s length prefix says \(length) bytes; \(bytes.endIndex - start) follow")
            }
            each(bytes[position] == 1, start..<(start + length))
            position = start + length
        }
        return nil
    }

    /// The length the 5-byte prefix at `position` gives its message (the flag byte, then a 4-byte
    /// big-endian length); the caller has checked the prefix is all there.
    private static func declaredLength<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes, prefixAt position: Int) -> Int
        where Bytes.Index == Int {
        bytes[(position + 1)..<(position + 5)].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The messages as they go on the wire.
    package static func frame(_ messages: [GRPCMessage]) -> Data {
        var data = Data(capacity: messages.reduce(0) { $0 + 5 + $1.bytes.count })
        for message in messages {
            let length = UInt32(message.bytes.count)
            data.append(message.compressed ? 1 : 0)
            data.append(contentsOf: [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            data.append(message.bytes)
        }
        return data
    }
}

extension GRPCMessage: Codable {
    private typealias CodingKeys = GRPCMessageCodingKey

    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let data = Data(base64Encoded: try container.decode(String.self, forKey: .base64)) else {
            throw DecodingError.dataCorruptedError(forKey: .base64, in: container, debugDescription: "not valid base64")
        }
        bytes = data
        compressed = try container.decodeIfPresent(Bool.self, forKey: .compressed) ?? false
        atMs = try container.decodeMillisecondsIfPresent(forKey: .atMs)
        guard bytes.count <= Int(UInt32.max) else {
            throw DecodingError.dataCorruptedError(forKey: .base64, in: container, debugDescription: "a gRPC message is at most 4 GiB")
        }
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bytes.base64EncodedString(), forKey: .base64)
        try container.encode(compressed, forKey: .compressed)
        try container.encodeIfPresent(atMs, forKey: .atMs)
    }
}
