import CZlib
import Foundation

/// WebSocket's `permessage-deflate` extension (RFC 7692): what two ends agreed in the handshake.
///
/// The recording proxy agrees it with the client and with the upstream separately, so each leg
/// keeps its compression while the cassette holds the messages decompressed; the replay server
/// agrees it with its clients. ``PerMessageDeflateCodec`` compresses and decompresses one
/// connection's messages under an agreement.
package struct PerMessageDeflate: Sendable, Equatable {
    /// Which end of the connection this side is.
    package enum Role: Sendable {
        case server
        case client
    }

    /// Whether the server starts each message with an empty window (`server_no_context_takeover`).
    package var serverNoContextTakeover = false
    /// Whether the client does (`client_no_context_takeover`).
    package var clientNoContextTakeover = false
    /// The largest window the server compresses with (`server_max_window_bits`, 8 to 15).
    package var serverMaxWindowBits = 15
    /// The largest window the client compresses with (`client_max_window_bits`, 8 to 15).
    package var clientMaxWindowBits = 15

    package init() {}

    /// The extension's name in `Sec-WebSocket-Extensions`.
    package static let name = "permessage-deflate"

    /// What a client side offers: the extension with any window for either side.
    package static let clientOffer = "permessage-deflate; client_max_window_bits"

    /// As a server: the first of the client's offers (the values of its `Sec-WebSocket-Extensions`
    /// headers) this side takes, and the `Sec-WebSocket-Extensions` value that accepts it; nil
    /// when the client offered none that is valid.
    package static func accepting(offers: [String]) -> (agreement: PerMessageDeflate, response: String)? {
        for offer in ExtensionList(offers).extensions where offer.name == name {
            var agreement = PerMessageDeflate()
            var response = [name]
            var seen = Set<String>()
            var valid = true
            for (parameter, value) in offer.parameters {
                guard seen.insert(parameter).inserted else { valid = false; break }
                switch (parameter, value) {
                case ("server_no_context_takeover", nil):
                    agreement.serverNoContextTakeover = true
                    response.append(parameter)
                case ("client_no_context_takeover", nil):
                    agreement.clientNoContextTakeover = true
                    response.append(parameter)
                case ("server_max_window_bits", let value?):
                    guard let bits = windowBits(value) else { valid = false; break }
                    agreement.serverMaxWindowBits = bits
                    response.append("\(parameter)=\(bits)")
                case ("client_max_window_bits", nil):
                    break  // the client takes any window; it keeps 15
                case ("client_max_window_bits", let value?):
                    guard let bits = windowBits(value) else { valid = false; break }
                    agreement.clientMaxWindowBits = bits
                    response.append("\(parameter)=\(bits)")
                default:
                    valid = false
                }
                if !valid { break }
            }
            if valid { return (agreement, response.joined(separator: "; ")) }
        }
        return nil
    }

    /// As a client that sent ``clientOffer``: the agreement in the server's `Sec-WebSocket-Extensions`
    /// values, or nil when it accepted no extension.
    package static func agreed(response values: [String]) throws(WebSocketExtensionError) -> PerMessageDeflate? {
        let extensions = ExtensionList(values).extensions
        guard let accepted = extensions.first else { return nil }
        guard extensions.count == 1, accepted.name == name else {
            throw WebSocketExtensionError(response: values.joined(separator: ", "), problem: "it names an extension that was not offered")
        }
        var agreement = PerMessageDeflate()
        for (parameter, value) in accepted.parameters {
            switch (parameter, value) {
            case ("server_no_context_takeover", nil):
                agreement.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil):
                agreement.clientNoContextTakeover = true
            case ("server_max_window_bits", let value?) where windowBits(value) != nil:
                agreement.serverMaxWindowBits = windowBits(value)!
            case ("client_max_window_bits", let value?) where windowBits(value) != nil:
                agreement.clientMaxWindowBits = windowBits(value)!
            default:
                throw WebSocketExtensionError(response: values.joined(separator: ", "), problem: "it has the parameter \(parameter) that cannot be honoured")
            }
        }
        return agreement
    }

    private static func windowBits(_ value: String) -> Int? {
        guard let bits = Int(value), (8...15).contains(bits), value.allSatisfy(\.isASCII) else { return nil }
        return bits
    }
}

/// A server's `Sec-WebSocket-Extensions` that a client cannot take.
package struct WebSocketExtensionError: Error, CustomStringConvertible, Equatable {
    /// The header's value.
    package var response: String
    /// What is wrong with it.
    package var problem: String

    package var description: String { "the upstream answered Sec-WebSocket-Extensions: \(response), and \(problem)" }
}

/// The extensions of `Sec-WebSocket-Extensions` values (RFC 6455 section 9.1): comma-separated,
/// each a name and `;`-separated parameters with optional (possibly quoted) values; names lowercased.
private struct ExtensionList {
    struct Extension {
        var name: String
        var parameters: [(String, String?)]
    }

    var extensions: [Extension] = []

    init(_ values: [String]) {
        for value in values {
            for item in value.split(separator: ",") {
                let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let name = parts.first, !name.isEmpty else { continue }
                let parameters = parts.dropFirst().map { part -> (String, String?) in
                    let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    let value = pieces.count == 2 ? pieces[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
                    return (pieces[0].lowercased(), value)
                }
                extensions.append(Extension(name: name.lowercased(), parameters: parameters))
            }
        }
    }
}

/// Compresses the messages one side of a connection sends, and decompresses the ones it
/// receives, under a ``PerMessageDeflate`` agreement: raw deflate, each message flushed and its
/// last four bytes (`00 00 FF FF`) left off, the context kept between messages unless agreed not.
///
/// Not thread-safe: one codec per connection, used on its event loop.
package final class PerMessageDeflateCodec {
    /// zlib's states, at fixed addresses (zlib keeps pointers back to them).
    private let deflater: UnsafeMutablePointer<z_stream>?
    private let inflater: UnsafeMutablePointer<z_stream>
    private let resetsDeflater: Bool
    private let resetsInflater: Bool

    /// A codec for `role`'s side of a connection agreed as `agreement`.
    package init(_ agreement: PerMessageDeflate, role: PerMessageDeflate.Role) {
        let ownBits = role == .server ? agreement.serverMaxWindowBits : agreement.clientMaxWindowBits
        resetsDeflater = role == .server ? agreement.serverNoContextTakeover : agreement.clientNoContextTakeover
        resetsInflater = role == .server ? agreement.clientNoContextTakeover : agreement.serverNoContextTakeover
        let size = Int32(MemoryLayout<z_stream>.size)
        // zlib's raw deflate cannot keep to a window of 8 bits (it takes 9): such a side sends its
        // messages uncompressed, which the extension allows.
        if ownBits > 8 {
            let deflater = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            deflater.initialize(to: z_stream())
            if deflateInit2_(deflater, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -Int32(ownBits), 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, size) == Z_OK {
                self.deflater = deflater
            } else {
                deflater.deallocate()
                self.deflater = nil
            }
        } else {
            deflater = nil
        }
        inflater = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        inflater.initialize(to: z_stream())
        // A window of 15 reads what any smaller window wrote.
        _ = inflateInit2_(inflater, -15, ZLIB_VERSION, size)
    }

    deinit {
        if let deflater {
            deflateEnd(deflater)
            deflater.deallocate()
        }
        inflateEnd(inflater)
        inflater.deallocate()
    }

    /// The payload of a compressed message, or nil when this side sends uncompressed.
    package func compress(_ message: Data) -> Data? {
        guard let deflater else { return nil }
        var output = Data()
        let status = ZlibPass.run(deflater, .deflate, input: message, flush: Z_SYNC_FLUSH, into: &output)
        guard status == Z_OK || status == Z_BUF_ERROR else { return nil }
        // zlib writes nothing when there was nothing to flush (an empty message after another):
        // RFC 7692 section 7.2.3.6 sends such a message as one empty stored block, a single 00.
        guard output.count >= 4 else { return Data([0x00]) }
        output.removeLast(4)  // 00 00 FF FF, which the receiver puts back
        if resetsDeflater { deflateReset(deflater) }
        return output
    }

    /// The message in a compressed payload, up to `limit` bytes.
    package func decompress(_ payload: Data, limit: Int) throws(DecompressionError) -> Data {
        var output = Data()
        let status = ZlibPass.run(inflater, .inflate, input: payload + [0x00, 0x00, 0xFF, 0xFF], flush: Z_SYNC_FLUSH, limit: limit,
                                  into: &output)
        if output.count > limit { throw .tooLarge(limit: limit) }
        guard status == Z_OK || status == Z_BUF_ERROR || status == Z_STREAM_END else { throw .corrupt(status: Int(status)) }
        if resetsInflater { inflateReset(inflater) }
        return output
    }

    /// Why a compressed message could not be read.
    package enum DecompressionError: Error, Equatable {
        /// It decompresses past the size limit.
        case tooLarge(limit: Int)
        /// zlib found it malformed.
        case corrupt(status: Int)
    }
}
