import Foundation
@testable import TapedeckServer

/// HTTP/2 frames written and read by hand, for tests that speak to a server over a raw socket.
enum HTTP2Frames {
    /// One frame: 24-bit length, type, flags, stream.
    static func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: Data = Data()) -> Data {
        let length = payload.count
        var bytes = Data([UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
                          UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)])
        bytes.append(payload)
        return bytes
    }

    /// An HPACK block: `POST http://127.0.0.1/plaintext?name=Frames` from the static table (`GET`
    /// with `get`, another path with `path`), plus `extra` as literals.
    static func requestBlock(get: Bool = false, path: String = "/plaintext?name=Frames", extra: [(String, String)] = []) -> Data {
        var block = Data([get ? 0x82 : 0x83, 0x86])  // :method GET or POST, :scheme http
        for (index, value) in [(UInt8(0x04), path), (0x01, "127.0.0.1")] {  // :path, :authority
            block.append(index)
            block.append(contentsOf: length(value.utf8.count))
            block.append(contentsOf: value.utf8)
        }
        for (name, value) in extra {
            block.append(0x00)
            block.append(contentsOf: length(name.utf8.count))
            block.append(contentsOf: name.utf8)
            block.append(contentsOf: length(value.utf8.count))
            block.append(contentsOf: value.utf8)
        }
        return block
    }

    /// An HPACK string length (7-bit prefix integer, no Huffman coding).
    static func length(_ value: Int) -> [UInt8] {
        guard value >= 127 else { return [UInt8(value)] }
        var bytes: [UInt8] = [127]
        var rest = value - 127
        while rest >= 128 {
            bytes.append(UInt8(rest & 0x7F | 0x80))
            rest >>= 7
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    /// The frames in a server's bytes: type, stream and the first four payload bytes as a number (an error code).
    static func frames(in data: Data) -> [(type: UInt8, stream: UInt32, code: UInt32?)] {
        var frames: [(UInt8, UInt32, UInt32?)] = []
        var offset = data.startIndex
        while data.endIndex - offset >= 9 {
            let length = Int(data[offset]) << 16 | Int(data[offset + 1]) << 8 | Int(data[offset + 2])
            let stream = data[(offset + 5)..<(offset + 9)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
            let payload = data[(offset + 9)..<min(offset + 9 + length, data.endIndex)]
            let type = data[offset + 3]
            // RST_STREAM's code is its payload; GOAWAY's follows the last stream id.
            let codeAt = type == 0x07 ? payload.startIndex + 4 : payload.startIndex
            let code = payload.endIndex - codeAt >= 4 ? payload[codeAt..<(codeAt + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : nil
            frames.append((type, stream, code))
            offset += 9 + length
        }
        return frames
    }

    static var greeting: Data {
        Data(HTTPVersionSnifferPreface.bytes) + frame(type: 0x04, flags: 0, stream: 0)
    }
}
