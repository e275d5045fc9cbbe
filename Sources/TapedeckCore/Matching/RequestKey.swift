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
    /// A large body by its SHA-256 in hexadecimal and its size (``RequestNormalizer/comparableBody(_:path:)``).
    case digest(String, count: Int)
    #if GraphQL
    /// A GraphQL request's operation and variables (``GraphQLMatchKey``).
    case graphQL(GraphQLMatchKey)
    #endif

    /// A large body by its SHA-256: a side file's (or a spooled upload's) from its name, without
    /// reading it; a body in memory hashed.
    static func digest(_ body: Body) -> ComparableBody {
        if let file = body.file, file.isNamedByContent { return .digest(file.digest, count: body.count) }
        return .digest(SHA256.hash(body.data).hexadecimal, count: body.count)
    }

    /// The kind in words, for diagnoses.
    var kindName: String {
        switch self {
        case .ignored: return "ignored"
        case .bytes: return "bytes"
        case .json: return "JSON"
        case .form: return "form"
        case .multipart: return "multipart"
        case .digest: return "large"
        #if GraphQL
        case .graphQL: return "GraphQL"
        #endif
        }
    }
}
