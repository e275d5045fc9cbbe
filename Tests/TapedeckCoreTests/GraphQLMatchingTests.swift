#if GraphQL
import Foundation
import Testing
@testable import TapedeckCore

@Suite("GraphQL: matching by operation and variables")
struct GraphQLMatchingTests {
    static let getUser = "query GetUser($id: ID!, $full: Boolean = false) { user(id: $id) { id name @include(if: $full) } }"

    /// A POST of a GraphQL envelope as JSON.
    func post(_ query: String?, operationName: String? = nil, variables: JSONValue? = nil, hash: String? = nil,
              url: String = "/graphql") -> CassetteRequest {
        var members: [String: JSONValue] = [:]
        if let query { members["query"] = .string(query) }
        if let operationName { members["operationName"] = .string(operationName) }
        if let variables { members["variables"] = variables }
        if let hash {
            members["extensions"] = .object(["persistedQuery": .object(["version": .integer(1), "sha256Hash": .string(hash)])])
        }
        let body = String(decoding: JSONValue.object(members).compactData, as: UTF8.self)
        return request("POST", url, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A GET with the envelope as URL parameters.
    func get(_ query: String, operationName: String? = nil, variables: String? = nil, extra: String = "") -> CassetteRequest {
        var items = [URLQueryItem(name: "query", value: query)]
        if let operationName { items.append(URLQueryItem(name: "operationName", value: operationName)) }
        if let variables { items.append(URLQueryItem(name: "variables", value: variables)) }
        var components = URLComponents(string: "/graphql")!
        components.queryItems = items
        let encoded = components.percentEncodedQuery!.replacingOccurrences(of: "+", with: "%2B")
        return request("GET", "/graphql?" + encoded + extra)
    }

    func matches(_ recorded: [CassetteRequest], _ incoming: CassetteRequest, options: MatchOptions = .default) -> [Int] {
        Matcher(interactions: recorded.map { interaction($0) }, options: options).matches(incoming)
    }

    func id(_ value: String) -> JSONValue { .object(["id": .string(value)]) }

    /// The diagnosis of a miss through the player.
    func miss(_ recorded: [CassetteRequest], _ incoming: CassetteRequest, options: MatchOptions = .default) throws -> MatchDiagnosis {
        let player = Player(cassette: cassette(recorded.map { interaction($0) }), name: "graphql.json",
                            options: PlaybackOptions(match: options))
        return try #require(player.play(incoming).diagnosis)
    }

    @Test("the same operation written differently matches: whitespace, commas, comments, argument and definition order")
    func equivalentQueriesMatch() {
        let recorded = post("""
            query GetUser($id: ID!, $full: Boolean = false) { user(id: $id) { ...F } }
            fragment F on User { id name @include(if: $full) }
            """, variables: id("1"))
        let rewritten = post("""
            # the same, reformatted
            fragment F on User {
              id, name @include(if: $full)
            }
            query GetUser($full: Boolean = false, $id: ID!) {
              user(id: $id) { ...F }
            }
            """, operationName: "GetUser", variables: .object(["id": .string("1")]))
        #expect(matches([recorded], rewritten) == [0])
        // Field order and aliases shape the answer: they make another operation.
        #expect(matches([recorded], post("query GetUser($id: ID!) { user(id: $id) { name id } }", variables: id("1"))).isEmpty)
        #expect(matches([recorded], post("query GetUser($id: ID!, $full: Boolean = false) { user(id: $id) { key: id name @include(if: $full) } }",
                                         variables: id("1"))).isEmpty)
    }

    @Test("the operation named by operationName is chosen from a document of several")
    func operationNameChooses() {
        let document = "query A { a } query B { b }"
        let recorded = [post(document, operationName: "A"), post(document, operationName: "B")]
        #expect(matches(recorded, post("query B { b } query A { a }", operationName: "B")) == [1])
        #expect(matches(recorded, post("query B { b }")) == [1])
    }

    @Test("variables compare as JSON by value; absent, null and {} are the same")
    func variablesByValue() {
        let recorded = [post(Self.getUser, variables: .object(["id": .string("1"), "n": .integer(2)])), post(Self.getUser)]
        #expect(matches(recorded, post(Self.getUser, variables: .object(["n": .double(2.0), "id": .string("1")]))) == [0])
        #expect(matches(recorded, post(Self.getUser, variables: .object(["id": .string("3"), "n": .integer(2)]))).isEmpty)
        #expect(matches(recorded, post(Self.getUser, variables: .object([:]))) == [1])
        #expect(matches(recorded, post(Self.getUser, variables: .null)) == [1])
    }

    @Test("a miss names the operation and the first variable that differs")
    func diagnosisNamesTheVariable() throws {
        let diagnosis = try miss([post(Self.getUser, variables: id("1"))], post(Self.getUser, variables: id("3")))
        #expect(diagnosis.errors == [MatchDiagnosis.GraphQLError(message: #"GetUser: $.variables.id recorded "1", received "3""#)])
        #expect(diagnosis.nearest.first?.failedRules == ["variables"])
        #expect(diagnosis.description.contains(#"GraphQL: GetUser: $.variables.id recorded "1", received "3""#))
    }

    @Test("a miss says when no recording has the operation, naming it")
    func diagnosisNamesTheMissingOperation() throws {
        let diagnosis = try miss([post(Self.getUser, variables: id("1"))], post("query GetPost { post { title } }"))
        #expect(diagnosis.errors?.first?.message == "no recording has the operation GetPost")
        #expect(diagnosis.nearest.first?.failedRules == ["operation"])
        #expect(diagnosis.nearest.first?.differences == ["recorded GetUser, received GetPost"])
    }

    @Test("a miss on another rule names the operation and that rule")
    func diagnosisNamesOtherRules() throws {
        let diagnosis = try miss([post(Self.getUser, variables: id("1"))], post(Self.getUser, variables: id("1"), url: "/other"))
        #expect(diagnosis.errors?.first?.message == "GetUser: path recorded /graphql, received /other")
    }

    @Test("ignore rules apply to the variables as to a body: $.variables.requestId, and at any depth")
    func ignoredVariables() throws {
        let options = MatchOptions(ignoredJSONPaths: [try JSONPath("$.variables.requestId"), try JSONPath("$..nonce")])
        let recorded = post(Self.getUser, variables: .object(["id": .string("1"), "requestId": .string("r1"),
                                                             "page": .object(["nonce": .integer(1)])]))
        let incoming = post(Self.getUser, variables: .object(["id": .string("1"), "requestId": .string("r2"),
                                                             "page": .object(["nonce": .integer(9)])]))
        #expect(matches([recorded], incoming, options: options) == [0])
        #expect(matches([recorded], incoming).isEmpty)
        // Over GET too: the rules read the variables as they would a POST body.
        #expect(matches([get(Self.getUser, variables: #"{"id":"1","requestId":"r1"}"#)],
                        get("query GetUser($full: Boolean = false, $id: ID!) { user(id: $id) { id name @include(if: $full) } }",
                            variables: #"{"requestId":"r2","id":"1"}"#), options: options) == [0])
    }

    @Test("a GET matches by operation and variables; other URL parameters still count; GET and POST differ by method")
    func getRequests() {
        let recorded = [get(Self.getUser, variables: #"{"id":"1"}"#, extra: "&lang=en"), post(Self.getUser, variables: id("1"))]
        let reformatted = "query   GetUser( $id : ID!, $full:Boolean=false ){user(id:$id){id,name@include(if:$full)}}"
        #expect(matches(recorded, get(reformatted, operationName: "GetUser", variables: #"{ "id": "1" }"#, extra: "&lang=en")) == [0])
        #expect(matches(recorded, get(reformatted, variables: #"{"id":"1"}"#, extra: "&lang=fr")).isEmpty)
        #expect(matches(recorded, post(reformatted, variables: id("1"))) == [1])
    }

    @Test("a request carrying only a persisted query's hash matches the recording of the query with that hash")
    func persistedQueries() throws {
        let hash = GraphQLRequest.persistedQueryHash(of: Self.getUser)
        let recorded = [post(Self.getUser, variables: id("1")), post(Self.getUser, variables: id("2"))]
        #expect(matches(recorded, post(nil, operationName: "GetUser", variables: id("2"), hash: hash)) == [1])
        // A recording that carried the hash beside its text, and one that carried the hash alone.
        let otherText = "query GetUser($id: ID!, $full: Boolean = false) {  user(id: $id) { id name @include(if: $full) } }"
        #expect(matches([post(otherText, variables: id("1"), hash: "abc")], post(nil, variables: id("1"), hash: "abc")) == [0])
        #expect(matches([post(nil, variables: id("1"), hash: "abc")], post(nil, variables: id("1"), hash: "abc")) == [0])
        #expect(matches(recorded, post(nil, variables: id("1"), hash: "unknown")).isEmpty)
        let diagnosis = try miss(recorded, post(nil, operationName: "GetUser", variables: id("1"), hash: "unknown"))
        #expect(diagnosis.errors?.first?.message.hasPrefix("no recording has the operation GetUser (a persisted query") == true)
    }

    @Test("a query that does not parse is matched by its body, and the diagnosis says so")
    func unparsableFallsBack() throws {
        let broken = post("query GetUser { user(id: ) { name } }", variables: id("1"))
        #expect(matches([broken], post("query GetUser { user(id: ) { name } }", variables: id("1"))) == [0])
        #expect(matches([broken], post("query GetUser {  user(id: ) { name } }", variables: id("1"))).isEmpty)
        let diagnosis = try miss([broken], post("query GetUser {  user(id: ) { name } }", variables: id("1")))
        #expect(diagnosis.errors?.first?.message == "the query does not parse: line 1, column 27: Unexpected ); matched by body")
        #expect(diagnosis.nearest.first?.failedRules == ["body"])
    }

    @Test("without GraphQL in a request, JSON bodies still compare as before; ignoring the body ignores the operation")
    func otherRequestsUnchanged() {
        let json: HeaderList = ["Content-Type": "application/json"]
        let recorded = request("POST", "/search", headers: json, body: #"{"filter": "query"}"#)
        #expect(matches([recorded], request("POST", "/search", headers: json, body: #"{ "filter":"query" }"#)) == [0])
        #expect(matches([post(Self.getUser, variables: id("1"))], post("{ other }"), options: MatchOptions(ignoreBody: true)) == [0])
    }

    @Test("1,000 recordings of one operation with distinct variables: each finds its own, a new one none")
    func thousandRecordings() throws {
        let recorded = (0..<1000).map { post(Self.getUser, variables: .object(["id": .string("\($0)"), "page": .integer(Int64($0 % 7))])) }
        let matcher = Matcher(interactions: recorded.map { interaction($0) })
        let rewritten = "query GetUser($full: Boolean = false, $id: ID!) { user(id: $id) { id, name @include(if: $full) } }"
        for number in [0, 1, 499, 998, 999] {
            let incoming = post(rewritten, variables: .object(["page": .integer(Int64(number % 7)), "id": .string("\(number)")]))
            #expect(matcher.matches(incoming) == [number])
        }
        #expect(matcher.matches(post(rewritten, variables: .object(["id": .string("1000"), "page": .integer(0)]))).isEmpty)
    }
}
#endif
