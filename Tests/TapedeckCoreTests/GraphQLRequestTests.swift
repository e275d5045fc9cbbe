#if GraphQL
import Foundation
import Testing
@testable import TapedeckCore

@Suite("GraphQL: recognizing a request")
struct GraphQLRequestTests {
    private func post(_ body: String, contentType: String? = "application/json") -> GraphQLRequest? {
        GraphQLRequest(method: "POST", urlQuery: nil, body: Data(body.utf8), contentType: contentType)
    }

    private func get(_ query: String) -> GraphQLRequest? {
        GraphQLRequest(method: "GET", urlQuery: query, body: Data(), contentType: nil)
    }

    @Test("a POST of JSON with a query, an operation name and variables")
    func postWithQuery() throws {
        let request = try #require(post(#"""
            {"query": "query GetUser($id: ID!) { user(id: $id) { name } }", "operationName": "GetUser",
             "variables": {"id": "1", "filter": {"active": true}}}
            """#))
        #expect(request.query == "query GetUser($id: ID!) { user(id: $id) { name } }")
        #expect(request.operationName == "GetUser")
        #expect(request.variables == .object(["id": .string("1"), "filter": .object(["active": .bool(true)])]))
        #expect(request.persistedQueryHash == nil)
        let operation = try #require(try request.operation())
        #expect(operation.name == "GetUser")
        #expect(operation.operationType == .query)
    }

    @Test("a POST is read with any JSON Content-Type, or none", arguments: [
        "application/json", "application/json; charset=utf-8", "Application/JSON", "application/graphql+json", nil,
    ])
    func postContentTypes(contentType: String?) {
        #expect(post(#"{"query": "{ a }"}"#, contentType: contentType)?.query == "{ a }")
    }

    @Test("a GET with the query, operation name and JSON variables as URL parameters")
    func getWithParameters() throws {
        let query = "query GetUser($id: ID!) { user(id: $id) { name } }"
        let encoded = try #require(query.addingPercentEncoding(withAllowedCharacters: .urlUnreserved))
        let variables = try #require(#"{"id":"1"}"#.addingPercentEncoding(withAllowedCharacters: .urlUnreserved))
        let request = try #require(get("query=\(encoded)&operationName=GetUser&variables=\(variables)&other=1"))
        #expect(request.query == query)
        #expect(request.operationName == "GetUser")
        #expect(request.variables == .object(["id": .string("1")]))
        // `+` is a space in a query string, as a form encodes it.
        #expect(get("query=%7B+a+%7D")?.query == "{ a }")
        // The same operation as the POST form.
        let posted = try #require(post(#"{"query": "query GetUser($id: ID!) {\n  user(id: $id) { name }\n}"}"#))
        #expect(try request.operation()?.key == posted.operation()?.key)
    }

    @Test("a request as the core holds it: the URL's query string for a GET, the body for a POST")
    func fromCassetteRequest() throws {
        let viaGet = CassetteRequest(method: "GET", url: "https://api.example.test/graphql?query=%7B%20a%20%7D")
        #expect(GraphQLRequest(viaGet)?.query == "{ a }")
        let viaPost = CassetteRequest(method: "POST", url: "/graphql", headers: ["Content-Type": "application/json"],
                                      body: Body(text: #"{"query": "{ b }", "variables": null, "operationName": ""}"#))
        #expect(GraphQLRequest(viaPost) == GraphQLRequest(query: "{ b }"))
        #expect(GraphQLRequest(CassetteRequest(method: "GET", url: "/graphql")) == nil)
    }

    @Test("a persisted query's hash alone, over POST or GET, is a GraphQL request without a query")
    func persistedQueryOnly() throws {
        let hash = "eeddb4db1a52b7200d22a9a884f60b8de7ab5c4ca2299e1eb41f62409b688689"
        let posted = try #require(post(#"""
            {"operationName": "GetUser", "variables": {"id": "1"},
             "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "\#(hash)"}}}
            """#))
        #expect(posted.query == nil)
        #expect(posted.persistedQueryHash == hash)
        #expect(posted.operationName == "GetUser")
        #expect(try posted.operation() == nil)
        let extensions = try #require(#"{"persistedQuery":{"version":1,"sha256Hash":"\#(hash)"}}"#.addingPercentEncoding(withAllowedCharacters: .urlUnreserved))
        let viaGet = try #require(get("operationName=GetUser&extensions=\(extensions)"))
        #expect(viaGet.persistedQueryHash == hash)
        #expect(viaGet.query == nil)
    }

    @Test("the hash of a query as sent is its SHA-256, the one Apollo's persisted queries name")
    func queryHash() throws {
        // hashlib.sha256(b"query GetUser { user { name } }").hexdigest()
        let hash = "eeddb4db1a52b7200d22a9a884f60b8de7ab5c4ca2299e1eb41f62409b688689"
        #expect(GraphQLRequest.persistedQueryHash(of: "query GetUser { user { name } }") == hash)
        let registering = try #require(post(#"""
            {"query": "query GetUser { user { name } }", "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "\#(hash)"}}}
            """#))
        #expect(registering.queryHash == registering.persistedQueryHash)
        // The hash is of the text as sent: reformatted, it is another hash, though the same operation.
        let reformatted = try #require(post(#"{"query": "query GetUser {\n  user { name }\n}"}"#))
        #expect(reformatted.queryHash != hash)
        #expect(try reformatted.operation()?.key == registering.operation()?.key)
    }

    @Test("not GraphQL requests: other JSON, batches, other methods and types, malformed envelopes", arguments: [
        ("POST", nil, #"{"name": "Ada"}"#, "application/json"),
        ("POST", nil, #"{"query": 5}"#, "application/json"),
        ("POST", nil, #"{"query": "{ a }", "operationName": 3}"#, "application/json"),
        ("POST", nil, #"{"extensions": {"persistedQuery": {"version": 1}}}"#, "application/json"),
        ("POST", nil, #"[{"query": "{ a }"}, {"query": "{ b }"}]"#, "application/json"),
        ("POST", nil, #"{"query": "{ a }"}"#, "text/plain"),
        ("POST", nil, "query=%7B+a+%7D", "application/x-www-form-urlencoded"),
        ("POST", nil, "{ a }", "application/graphql"),
        ("POST", nil, "not json", nil),
        ("PUT", nil, #"{"query": "{ a }"}"#, "application/json"),
        ("GET", "id=1", "", nil),
        ("GET", nil, #"{"query": "{ a }"}"#, "application/json"),
        ("GET", "query=%7Ba%7D&variables=not-json", "", nil),
    ] as [(String, String?, String, String?)])
    func notGraphQL(method: String, urlQuery: String?, body: String, contentType: String?) {
        #expect(GraphQLRequest(method: method, urlQuery: urlQuery, body: Data(body.utf8), contentType: contentType) == nil)
    }

    @Test("null variables and an empty operation name count as none")
    func emptyMembers() throws {
        let request = try #require(post(#"{"query": "{ a }", "variables": null, "operationName": null}"#))
        #expect(request.variables == nil)
        #expect(request.operationName == nil)
        #expect(get("query=%7Ba%7D&operationName=&variables=")?.operationName == nil)
    }

    @Test("a recognized request whose query does not parse gives the typed error with its place")
    func unparsableQuery() throws {
        let request = try #require(post(#"{"query": "query Q {\n  user(id: ) { name }\n}"}"#))
        #expect(throws: GraphQLRequestError.unparsable(line: 2, column: 12, message: "Unexpected )")) { try request.operation() }
        // A search API's `?query=` is taken for GraphQL too, and does not parse.
        let search = try #require(get("query=shoes"))
        #expect(throws: GraphQLRequestError.self) { try search.operation() }
    }

    @Test("operationName picks the operation of a document of several")
    func operationNamePicks() throws {
        let request = try #require(post(#"{"query": "query A { a } query B { b }", "operationName": "B"}"#))
        #expect(try request.operation()?.name == "B")
        let unnamed = try #require(post(#"{"query": "query A { a } query B { b }"}"#))
        #expect(throws: GraphQLRequestError.ambiguousOperation(available: ["A", "B"])) { try unnamed.operation() }
    }
}
#endif
