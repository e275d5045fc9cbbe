import Foundation
import Testing
@testable import TapedeckCore

@Suite("gzip and deflate piece by piece")
struct ContentCodingStreamTests {
    /// Text that compresses, and bytes that do not, long enough to span several output chunks.
    static let body: Data = {
        var data = Data(String(repeating: "tapedeck streams large bodies; ", count: 4000).utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            data.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        return data
    }()

    static func pieces(_ data: Data, size: Int) -> [Data] {
        stride(from: 0, to: data.count, by: size).map { data.subdata(in: $0..<min($0 + size, data.count)) }
    }

    static func run(_ stream: ContentCodingStream, _ pieces: [Data]) throws -> Data {
        var output = Data()
        for piece in pieces { output.append(try stream.update(piece)) }
        output.append(try stream.finish())
        return output
    }

    @Test("encoding in pieces gives what the one-shot decoder reads back", arguments: [ContentCoding.gzip, .deflate])
    func encodeInPieces(coding: ContentCoding) throws {
        let encoded = try Self.run(ContentCodingStream(encoding: coding), Self.pieces(Self.body, size: 7_777))
        #expect(encoded.count < Self.body.count)
        #expect(try coding.decode(encoded) == Self.body)
    }

    @Test("decoding in pieces, down to one byte at a time, gives the body back", arguments: [ContentCoding.gzip, .deflate])
    func decodeInPieces(coding: ContentCoding) throws {
        let encoded = try coding.encode(Self.body)
        #expect(try Self.run(ContentCodingStream(decoding: coding), Self.pieces(encoded, size: 4096)) == Self.body)
        let small = try coding.encode(Data("hello".utf8))
        #expect(try Self.run(ContentCodingStream(decoding: coding), Self.pieces(small, size: 1)) == Data("hello".utf8))
    }

    @Test("raw deflate (no zlib wrapper), as some servers send it, decodes too")
    func rawDeflate() throws {
        let wrapped = try ContentCoding.deflate.encode(Self.body)
        let raw = wrapped.subdata(in: 2..<(wrapped.count - 4))
        #expect(try Self.run(ContentCodingStream(decoding: .deflate), Self.pieces(raw, size: 1000)) == Self.body)
        #expect(try ContentCoding.deflate.decode(raw) == Self.body, "the one-shot decoder reads it by the same rule")
        #expect(try ContentCoding.deflate.decode(wrapped) == Self.body)
    }

    @Test("a truncated or corrupt coded body is an error, not a short body")
    func badInput() throws {
        let encoded = try ContentCoding.gzip.encode(Self.body)
        #expect(throws: ContentCodingError.self) {
            try Self.run(ContentCodingStream(decoding: .gzip), [encoded.prefix(encoded.count / 2)])
        }
        #expect(throws: ContentCodingError.self) {
            try Self.run(ContentCodingStream(decoding: .gzip), [Data([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3])])
        }
        let finished = ContentCodingStream(encoding: .gzip)
        _ = try finished.finish()
        #expect(throws: ContentCodingError.self) { try finished.update(Data("late".utf8)) }
    }

    @Test("a piece that inflates a thousandfold comes out in 64 KiB pieces, and a decoder stops past its limit")
    func boundedOutput() throws {
        let bomb = try ContentCoding.gzip.encode(Data(count: 16 << 20))
        #expect(bomb.count < 64 << 10)
        var sizes: [Int] = []
        let unbounded = ContentCodingStream(decoding: .gzip, limit: nil)
        try unbounded.update(bomb) { sizes.append($0.count) }
        try unbounded.finish { sizes.append($0.count) }
        #expect(sizes.reduce(0, +) == 16 << 20)
        #expect(sizes.allSatisfy { $0 <= 64 << 10 })

        var decoded = 0
        let bounded = ContentCodingStream(decoding: .gzip, limit: 1 << 20)
        let error = #expect(throws: ContentCodingError.self) { try bounded.update(bomb) { decoded += $0.count } }
        #expect(error?.isPastLimit == true)
        #expect(error?.description == "cannot decode gzip body: it decodes past 1048576 bytes")
        #expect(decoded <= (1 << 20) + (64 << 10))
    }

    @Test("a decoder made without a limit stops at ContentCoding.decodedLimit")
    func decodersAreBoundedByDefault() throws {
        let bomb = try ContentCoding.gzip.encode(Data(count: ContentCoding.decodedLimit + 1))
        var decoded = 0
        let error = #expect(throws: ContentCodingError.self) {
            let decoder = ContentCodingStream(decoding: .gzip)
            try decoder.update(bomb) { decoded += $0.count }
            try decoder.finish { decoded += $0.count }
        }
        #expect(error?.isPastLimit == true)
        #expect(decoded <= ContentCoding.decodedLimit + (64 << 10))
    }

    @Test("an empty body encodes to a valid empty stream")
    func emptyBody() throws {
        let encoded = try Self.run(ContentCodingStream(encoding: .gzip), [])
        #expect(try ContentCoding.gzip.decode(encoded).isEmpty)
    }
}
