import Foundation

/// A request reduced to what matching compares, so that equal keys mean a match.
///
/// Keys are hashed into the matcher's index; the host is kept apart because it is
/// compared only when the incoming request names one.
struct RequestKey: Sendable, Hashable {
    /// The uppercased method.
    var method: String
    /// The path with unreserved percent escapes decoded.
    var path: String
    /// Decoded query pairs, sorted, without ignored names.
    var query: [FormURLEncoding.Pair]
    /// The body in its comparable form.
    var body: ComparableBody
    /// The matched headers: lowercased name and values, sorted by name.
    var headers: [HeaderValues]

    /// One matched header's values.
    struct HeaderValues: Sendable, Hashable {
        var name: String
        var values: [String]
    }
}

/// A body in the form it is compared in, chosen by its Content-Type.
enum ComparableBody: Sendable, Hashable {
    /// Bodies are not compared.
    case ignored
    /// Byte for byte.
    case bytes(Data)
    /// JSON by value, with ignored places removed.
    case json(JSONValue)
    /// Form pairs, sorted, without ignored fields.
    case form([FormURLEncoding.Pair])
    /// Multipart parts in order, boundary left out.
    case multipart([Multipart.Part])

    /// The kind in words, for diagnoses.
    var kindName: String {
        switch self {
        case .ignored: return "ignored"
        case .bytes: return "bytes"
        case .json: return "JSON"
        case .form: return "form"
        case .multipart: return "multipart"
        }
    }
}
