import Foundation

/// The text of Tapedeck's own gRPC errors and gRPC's percent-encoding of `grpc-message`: one rule
/// for the replay server's trailers and the in-process transport's `RPCError`.
package enum GRPCStatusText {
    /// Why nothing answered a call, from its diagnosis:
    /// `no recording matched /demo.Greeter/SayHello; nearest #3 in greeter.json: body ...`.
    package static func miss(_ diagnosis: MatchDiagnosis) -> String {
        let path = RequestTarget(diagnosis.request.url).path
        var text: String
        switch diagnosis.reason {
        case .noMatch: text = "no recording matched \(path)"
        case .exhausted: text = "every recording of \(path) was already played"
        case .expired: text = "every recording of \(path) has expired"
        }
        if let nearest = diagnosis.nearest.first {
            let difference = nearest.differences.first ?? nearest.failedRules.first ?? "differs"
            text += "; nearest #\(nearest.index) in \(nearest.cassette): \(difference)"
        }
        return text
    }

    /// Why a replayed chat ended: its client left the recording (``GRPCConversation/Action/depart(_:)``).
    package static func departure(path: some StringProtocol, reason: String) -> String {
        "the call left its recording of \(path): \(reason)"
    }

    private static let hexDigits = Array("0123456789ABCDEF")

    /// gRPC's percent-encoding of `grpc-message`: every byte outside printable ASCII, and `%`, as `%XX`.
    package static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "%") {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%"
                encoded.append(hexDigits[Int(byte >> 4)])
                encoded.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return encoded
    }

    /// A `grpc-message` as text: `%XX` sequences decoded, a malformed one kept as it is.
    package static func percentDecoded(_ value: String) -> String {
        var bytes: [UInt8] = []
        var rest = Substring(value).utf8[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%"), rest.count >= 2,
               let decoded = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(decoded)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
