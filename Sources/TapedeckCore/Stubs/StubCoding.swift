import Foundation

// Reading stubs from cassettes and stub files (SPEC section 10). Unknown fields are refused, so a
// misspelt `bodyContain` fails loudly instead of matching everything; every error names the JSON
// path (`stubs[2].request.pathRegex`), as cassette errors do.

/// Any key, for refusing the ones a stub does not know.
private struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Throws when the object at this place has a key outside `known`.
    fileprivate func refuseUnknownKeys(_ known: [String], in what: String) throws {
        let container = try self.container(keyedBy: AnyKey.self)
        for key in container.allKeys where !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "\(what) has no field \"\(key.stringValue)\"; known: \(known.joined(separator: ", "))")
        }
    }
}

extension Stub: Decodable {
    private enum CodingKeys: String, CodingKey, CaseIterable { case id, name, priority, scenario, request, response }

    /// Reads a stub.
    public init(from decoder: Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.allCases.map(\.rawValue), in: "a stub")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decodeIfPresent(String.self, forKey: .id) ?? "",
                  name: try container.decodeIfPresent(String.self, forKey: .name),
                  priority: try container.decodeIfPresent(Int.self, forKey: .priority) ?? 5,
                  scenario: try container.decodeIfPresent(StubScenario.self, forKey: .scenario),
                  request: try container.decodeIfPresent(RequestPattern.self, forKey: .request) ?? RequestPattern(),
                  answer: .response(try container.decode(StubResponse.self, forKey: .response)))
    }
}

extension RequestPattern: Decodable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case method, host, path, pathRegex, query, headers, form, json, bodyContains
        #if GraphQL
        case graphql
        #endif
    }

    /// Reads a request pattern.
    public init(from decoder: Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.allCases.map(\.rawValue), in: "a request pattern")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var regex: StubRegex?
        if let pattern = try container.decodeIfPresent(String.self, forKey: .pathRegex) {
            do {
                regex = try StubRegex(pattern)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .pathRegex, in: container, debugDescription: "\(error)")
            }
        }
        let query = try container.decodeIfPresent([String: String].self, forKey: .query) ?? [:]
        let headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
        let form = try container.decodeIfPresent([String: String].self, forKey: .form) ?? [:]
        let method = try container.decodeIfPresent(String.self, forKey: .method)
        let host = try container.decodeIfPresent(String.self, forKey: .host)
        let path = try container.decodeIfPresent(String.self, forKey: .path)
        let json = try container.decodeIfPresent(JSONValue.self, forKey: .json)
        let bodyContains = try container.decodeIfPresent(String.self, forKey: .bodyContains)
        self.init(method: method, host: host, path: path, pathRegex: regex,
                  query: query.mapValues { ValuePattern($0) }, headers: headers.mapValues { ValuePattern($0) },
                  form: form.mapValues { ValuePattern($0) }, json: json, bodyContains: bodyContains)
        #if GraphQL
        graphQL = try container.decodeIfPresent(GraphQLPattern.self, forKey: .graphql)
        #endif
    }
}

#if GraphQL
extension GraphQLPattern: Decodable {
    private enum CodingKeys: String, CodingKey, CaseIterable { case operationName, variables, query }

    /// Reads a `graphql` pattern; a query with no operation to compare is refused with the parser's reason.
    public init(from decoder: Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.allCases.map(\.rawValue), in: "a graphql pattern")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(operationName: try container.decodeIfPresent(String.self, forKey: .operationName),
                          variables: try container.decodeIfPresent(JSONValue.self, forKey: .variables),
                          query: try container.decodeIfPresent(String.self, forKey: .query))
        } catch let error as GraphQLRequestError {
            throw DecodingError.dataCorruptedError(forKey: .query, in: container, debugDescription: "\(error)")
        }
    }
}
#endif

extension StubResponse: Decodable {
    private enum CodingKeys: String, CodingKey, CaseIterable { case status, headers, body, grpc, trailers, delayMs, templated, fault, websocket }

    /// Reads a stub's response; a `fault` needs no status, nor do gRPC messages (200), nor a
    /// WebSocket conversation (101).
    public init(from decoder: Decoder) throws {
        try decoder.refuseUnknownKeys(CodingKeys.allCases.map(\.rawValue), in: "a stub response")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let fault = try container.decodeIfPresent(StubFault.self, forKey: .fault)
        let messages = try container.decodeIfPresent([GRPCMessage].self, forKey: .grpc)
        let websocket = try container.decodeIfPresent([WebSocketMessage].self, forKey: .websocket)
        let status = try container.decodeIfPresent(Int.self, forKey: .status)
            ?? (websocket != nil ? 101 : fault == nil && messages == nil ? nil : 200)
        guard let status, AnswerStatusRule.stubbed.contains(status) else {
            throw DecodingError.dataCorruptedError(forKey: .status, in: container,
                                                   debugDescription: "a stub response needs a status from 100 to 999 (or a fault, gRPC messages or a WebSocket conversation)")
        }
        if let refusal = AnswerStatusRule.refusal(status: status, hasConversation: websocket != nil) {
            throw DecodingError.dataCorruptedError(forKey: .status, in: container, debugDescription: refusal)
        }
        var headers = try container.decodeIfPresent(HeaderList.self, forKey: .headers) ?? [:]
        var body = try container.decodeBody(forKey: .body, sideFiles: decoder.userInfo[.tapedeckSideFiles] as? SideFiles)
        if let messages {
            guard !container.contains(.body) else {
                throw DecodingError.dataCorruptedError(forKey: .grpc, in: container, debugDescription: "a stub response has a body or gRPC messages, not both")
            }
            body = Body(GRPCMessage.frame(messages), style: .grpc)
            if !headers.contains("Content-Type") { headers.append(name: "Content-Type", value: "application/grpc") }
        }
        // A `{"json": ...}` body says what it is: served as JSON unless the stub names another type.
        if body.style == .json, !body.isEmpty, !headers.contains("Content-Type") {
            headers.append(name: "Content-Type", value: "application/json")
        }
        self.init(status: status,
                  headers: headers,
                  body: body,
                  trailers: try container.decodeIfPresent(HeaderList.self, forKey: .trailers),
                  delayMs: try container.decodeDelayIfPresent(forKey: .delayMs),
                  templated: try container.decodeIfPresent(Bool.self, forKey: .templated) ?? false,
                  fault: fault,
                  websocket: websocket)
    }
}

extension Stub {
    /// Reads stubs sent at run time: one stub object, or `{"stubs": [...]}`. Errors name the
    /// JSON path of the field (`stubs[1].request.pathRegex`, or `request.pathRegex` for one stub).
    public static func decodeList(from data: Data) throws(CassetteError) -> [Stub] {
        let decoder = JSONDecoder()
        do {
            let json = try decoder.decode(JSONValue.self, from: data)
            if case .object(let members) = json, case .array(let list)? = members["stubs"] {
                return zip(try decoder.decode(StubList.self, from: data).stubs, list).map { $0.with(definition: $1) }
            }
            return [try decoder.decode(Stub.self, from: data).with(definition: json)]
        } catch let error as DecodingError {
            throw CassetteError(file: nil, kind: CassetteCodec.kind(of: error, in: data, document: .stubRequest))
        } catch {
            throw CassetteError(file: nil, kind: .io("\(error)"))
        }
    }

    private func with(definition: JSONValue) -> Stub {
        var stub = self
        stub.definition = definition
        return stub
    }
}

/// `{"stubs": [...]}`.
private struct StubList: Decodable {
    let stubs: [Stub]
}
