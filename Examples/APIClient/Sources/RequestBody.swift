import Foundation

/// What a request carries: nothing, JSON, a URL-encoded form, or a multipart form.
public enum RequestBody: Sendable {
    /// No body.
    case none
    /// An encoded JSON document.
    case json(Data)
    /// `application/x-www-form-urlencoded` fields, in order.
    case form([(name: String, value: String)])
    /// `multipart/form-data`.
    case multipart(MultipartForm)

    /// A JSON body from an `Encodable` value, with sorted keys so it is stable.
    public static func json(_ value: some Encodable) throws -> RequestBody {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return .json(try encoder.encode(value))
    }

    /// The `Content-Type` header, if there is a body.
    var contentType: String? {
        switch self {
        case .none: return nil
        case .json: return "application/json"
        case .form: return "application/x-www-form-urlencoded"
        case .multipart(let form): return "multipart/form-data; boundary=\(form.boundary)"
        }
    }

    /// The encoded bytes, if there is a body.
    var data: Data? {
        switch self {
        case .none: return nil
        case .json(let data): return data
        case .form(let fields):
            return Data(fields.map { "\(Self.formEscape($0.name))=\(Self.formEscape($0.value))" }.joined(separator: "&").utf8)
        case .multipart(let form): return form.encoded()
        }
    }

    private static func formEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(of: "%20", with: "+")
    }
}
