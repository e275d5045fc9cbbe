import Foundation

/// Turns requests into ``RequestKey``s under the match options, plus the places a cassette
/// redacted, so that a live request still matches its redacted recording.
struct RequestNormalizer: Sendable {
    let options: MatchOptions
    private let ignoredQuery: Set<String>
    private let ignoredForm: Set<String>
    private let ignoredJSON: [JSONPath]
    private let matchedHeaders: [String]
    #if GraphQL
    /// The recorded GraphQL queries, parsed once.
    let graphQL: GraphQLKeyReader
    #endif

    /// Creates a normalizer; `recorded` is scanned for redacted values, which are then ignored.
    init(options: MatchOptions, recorded: [Interaction]) {
        self.options = options
        var query = Set(options.ignoredQueryParameters.map { $0.lowercased() })
        var form = Set(options.ignoredFormFields.map { $0.lowercased() })
        var json = options.ignoredJSONPaths
        var redactedHeaders = Set<String>()
        var seenJSONPaths = Set(json.map(\.description))
        let marker = Redactor.placeholder
        for interaction in recorded {
            let request = interaction.request
            if request.url.contains(marker), let text = request.target.query {
                for pair in FormURLEncoding.pairs(Substring(text)) where pair.value == marker { query.insert(pair.name.lowercased()) }
            }
            for field in request.headers where field.value == marker { redactedHeaders.insert(field.name.lowercased()) }
            // A body compared by its digest (a large one) or byte for byte has no places to forgive.
            let kind = BodyKind(contentType: request.headers["Content-Type"])
            guard kind == .json || kind == .form, request.body.count <= Body.wholeReadLimit,
                  request.body.data.range(of: Data(marker.utf8)) != nil else { continue }
            switch kind {
            case .json:
                guard let value = JSONValue(parsing: request.body.data) else { break }
                for path in Self.redactedPaths(in: value) where seenJSONPaths.insert(path.description).inserted { json.append(path) }
            case .form:
                for pair in FormURLEncoding.pairs(Substring(decoding: request.body.data, as: UTF8.self)) where pair.value == marker {
                    form.insert(pair.name.lowercased())
                }
            default:
                break
            }
        }
        ignoredQuery = query
        ignoredForm = form
        ignoredJSON = json
        matchedHeaders = options.matchedHeaders.map { $0.lowercased() }.filter { !redactedHeaders.contains($0) }.sorted()
        #if GraphQL
        graphQL = GraphQLKeyReader(recorded: recorded)
        #endif
    }

    /// The comparable form of a request whose URL is already split into `target`: for a GraphQL
    /// request, its operation and variables (``GraphQLMatchKey``) stand in place of the body and,
    /// for a GET, of the URL parameters that carry them.
    func key(for request: CassetteRequest, target: RequestTarget) -> RequestKey {
        let method = request.method.uppercased()
        var body: ComparableBody?
        var comparedApart: Set<String> = []
        #if GraphQL
        if let graphQLKey = graphQLKey(for: request) {
            body = .graphQL(graphQLKey)
            if method == "GET" { comparedApart = GraphQLRequest.urlParameterNames }
        }
        #endif
        return RequestKey(
            method: method,
            path: FormURLEncoding.normalizePath(target.path),
            query: comparableQuery(target.query, leavingOut: comparedApart),
            body: body ?? comparableBody(request, path: target.path),
            headers: matchedHeaders.map { RequestKey.HeaderValues(name: $0, values: request.headers.values(for: $0)) })
    }

    /// Decoded, sorted query pairs without ignored names (and without `leftOut`, names compared apart).
    func comparableQuery(_ query: String?, leavingOut leftOut: Set<String> = []) -> [FormURLEncoding.Pair] {
        guard let query, !query.isEmpty else { return [] }
        return FormURLEncoding.pairs(Substring(query))
            .filter { !ignoredQuery.contains($0.name.lowercased()) && !leftOut.contains($0.name) }.sorted()
    }

    #if GraphQL
    /// A GraphQL request's operation and variables; nil when the request is not GraphQL, when its
    /// query has no operation (it is then matched by its body as any other), and when bodies are ignored.
    private func graphQLKey(for request: CassetteRequest) -> GraphQLMatchKey? {
        guard !options.ignoreBody, let graphQLRequest = GraphQLKeyReader.graphQLRequest(request) else { return nil }
        return try? graphQLKey(for: graphQLRequest).get()
    }

    /// A GraphQL request's operation and variables under the ignore rules, or why its query has no operation.
    func graphQLKey(for request: GraphQLRequest) -> Result<GraphQLMatchKey, GraphQLRequestError> {
        graphQL.key(for: request, ignoring: ignoredJSON)
    }
    #endif

    /// The body in the form its Content-Type calls for; a gRPC request's messages as JSON when
    /// the options carry a ``ProtoSchema`` that reads them all.
    ///
    /// A body larger than ``Body/wholeReadLimit``, and one compared byte for byte that is larger than
    /// ``digestThreshold``, is compared by its SHA-256 (``ComparableBody/digest(_:count:)``): a side
    /// file, or an upload the server spooled, is then never read whole, and a miss on it costs no
    /// byte-by-byte comparison. The rule looks only at the size and the Content-Type, so a recorded
    /// body and a received one of the same bytes always take the same form.
    func comparableBody(_ request: CassetteRequest, path: String) -> ComparableBody {
        if options.ignoreBody { return .ignored }
        let body = request.body
        let contentType = request.headers["Content-Type"]
        let kind = BodyKind(contentType: contentType)
        if body.count > Body.wholeReadLimit || (kind == .other && body.count > Self.digestThreshold && !GRPCCall.isGRPC(contentType: contentType)) {
            return .digest(body)
        }
        let data = body.data
        guard !data.isEmpty else { return .bytes(data) }
        if let schema = options.protoSchema, GRPCCall.isGRPC(contentType: contentType),
           var messages = schema.json(grpcBody: data, path: path, isRequest: true) {
            for ignored in ignoredJSON { messages = ignored.rewriting(messages) { _ in nil } }
            return .json(messages)
        }
        switch kind {
        case .json:
            guard var value = JSONValue(parsing: data) else { return .bytes(data) }
            for path in ignoredJSON { value = path.rewriting(value) { _ in nil } }
            return .json(value)
        case .form:
            let pairs = FormURLEncoding.pairs(Substring(decoding: data, as: UTF8.self))
            return .form(pairs.filter { !ignoredForm.contains($0.name.lowercased()) }.sorted())
        case .multipart:
            guard let boundary = contentType.flatMap(Multipart.boundary(fromContentType:)),
                  let parts = Multipart.parts(of: data, boundary: boundary) else { return .bytes(data) }
            return .multipart(parts.filter { part in part.name.map { !ignoredForm.contains($0.lowercased()) } ?? true })
        case .other:
            return .bytes(data)
        }
    }

    /// Bodies compared byte for byte that are larger than this are compared by their SHA-256: the
    /// side-file threshold, past which a cassette keeps a body in a file and the server spools an upload.
    static let digestThreshold = CassetteCodec.defaultSideFileThreshold

    /// Every concrete path whose value is the redaction placeholder.
    private static func redactedPaths(in value: JSONValue) -> [JSONPath] {
        var found: [[JSONPath.Segment]] = []
        func walk(_ value: JSONValue, _ prefix: [JSONPath.Segment]) {
            switch value {
            case .string(Redactor.placeholder): found.append(prefix)
            case .object(let object): for (key, member) in object { walk(member, prefix + [.key(key)]) }
            case .array(let array): for (index, element) in array.enumerated() { walk(element, prefix + [.index(index)]) }
            default: break
            }
        }
        walk(value, [])
        return found.map { JSONPath(segments: $0) }.sorted { $0.description < $1.description }
    }
}

/// How a body is compared, from its Content-Type.
enum BodyKind {
    case json, form, multipart, other

    init(contentType: String?) {
        let type = Self.mediaType(contentType ?? "")
        if type.caseInsensitiveEquals("application/json") || Substring(type.utf8.suffix(5)).caseInsensitiveEquals("+json") || type.caseInsensitiveEquals("text/json") {
            self = .json
        } else if type.caseInsensitiveEquals("application/x-www-form-urlencoded") {
            self = .form
        } else if type.caseInsensitiveEquals("multipart/form-data") {
            self = .multipart
        } else {
            self = .other
        }
    }

    /// The media type of a `Content-Type` value: without parameters and blanks, any case.
    private static func mediaType(_ contentType: String) -> Substring {
        let bytes = contentType.utf8
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        var type = bytes[..<end]
        while let first = type.first, isBlank(first) { type = type.dropFirst() }
        while let last = type.last, isBlank(last) { type = type.dropLast() }
        return Substring(type)
    }
}
