import Foundation
import TapedeckCore

/// Turns a JSON decoding failure of an input file into a place and a message users can act on.
enum DecodingFailure {
    /// The place (`log.entries[3].response.status`) and what is wrong there.
    static func describe(_ error: Error, in data: Data) -> (path: String, message: String) {
        guard let error = error as? DecodingError else { return ("", "\(error)") }
        switch error {
        case let .typeMismatch(type, context):
            return (CassetteCodec.path(context.codingPath), "expected \(type): \(DecodingMessage.shortened(context.debugDescription))")
        case let .valueNotFound(type, context):
            return (CassetteCodec.path(context.codingPath), "expected \(type), found null")
        case let .keyNotFound(key, context):
            return (CassetteCodec.path(context.codingPath + [key]), "required field is missing")
        case let .dataCorrupted(context):
            if context.codingPath.isEmpty, (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) == nil {
                return ("", "not valid JSON: \(underlying(context))")
            }
            return (CassetteCodec.path(context.codingPath), DecodingMessage.shortened(context.debugDescription))
        @unknown default:
            return ("", "\(error)")
        }
    }

    private static func underlying(_ context: DecodingError.Context) -> String {
        if let inner = context.underlyingError as NSError? {
            return (inner.userInfo[NSDebugDescriptionErrorKey] as? String) ?? inner.localizedDescription
        }
        return context.debugDescription
    }
}
