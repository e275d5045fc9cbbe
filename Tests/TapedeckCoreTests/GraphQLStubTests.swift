#if GraphQL
import Foundation
import Testing
@testable import TapedeckCore

@Suite("GraphQL: stubs by operation name, variables and query")
struct GraphQLStubTests {
    func post(_ envelope: String) -> CassetteRequest {
        request("POST", "/graphql", headers: ["Content-Type": "application/json"], body: envelope)
    }

    func pattern(_ json: String) throws -> RequestPattern {
        try JSONDecoder().decode(RequestPattern.self, from: Data(json.utf8))
    }

    /// The field the request fails, or nil when it matches.
    func failure(_ pattern: RequestPattern, _ request: CassetteRequest) -> String? {
        if case .failure(let failure) = pattern.evaluate(request) { return failure.field }
        return nil
    }

    let getUser = #"{"query": "query GetUser($id: ID!) { user(id: $id) { id name } }", "variables": {"id": "1", "lang": "en"}}"#

    @Test("operationName exactly: the chosen operation's name, or the request's own")
    func operationName() throws {
        let byName = try pattern(#"{"graphql": {"operationName": "GetUser"}}"#)
        #expect(failure(byName, post(getUser)) == nil)
        #expect(failure(byName, post(#"{"query": "query GetPost { post { title } }"}"#)) == "graphql.operationName")
        #expect(failure(byName, post(#"{"query": "query A { a } query GetUser { b }", "operationName": "GetUser"}"#)) == nil)
        #expect(failure(byName, post(#"{"extensions": {"persistedQuery": {"sha256Hash": "abc"}}, "operationName": "GetUser"}"#)) == nil)
        #expect(failure(byName, request("POST", "/graphql", headers: ["Content-Type": "application/json"], body: #"{"user": 1}"#))
                == "graphql")
    }

    @Test("variables by subset, as the json pattern: listed keys only, * any value")
    func variablesBySubset() throws {
        #expect(failure(try pattern(#"{"graphql": {"variables": {"id": "1"}}}"#), post(getUser)) == nil)
        #expect(failure(try pattern(#"{"graphql": {"variables": {"id": "*", "lang": "en"}}}"#), post(getUser)) == nil)
        #expect(failure(try pattern(#"{"graphql": {"variables": {"id": "2"}}}"#), post(getUser)) == "graphql.variables")
        #expect(failure(try pattern(#"{"graphql": {"variables": {"page": "*"}}}"#), post(getUser)) == "graphql.variables")
    }

    @Test("query by canonical form: the same operation however written, not another")
    func queryByCanonicalForm() throws {
        let byQuery = try pattern(#"{"graphql": {"query": "query GetUser($id: ID!) {\n  user(id: $id) {\n    id, name\n  }\n}"}}"#)
        #expect(failure(byQuery, post(getUser)) == nil)
        #expect(failure(byQuery, post(#"{"query": "query GetUser($id: ID!) { user(id: $id) { name id } }"}"#)) == "graphql.query")
        #expect(failure(byQuery, post(#"{"query": "query GetUser { "}"#)) == "graphql.query")
    }

    @Test("a graphql pattern whose query does not parse, or with an unknown field, is refused when read, naming the place")
    func refusedWhenRead() {
        #expect(throws: CassetteError.self) {
            try Stub.decodeList(from: Data(#"{"request": {"graphql": {"query": "query {"}}, "response": {"status": 200}}"#.utf8))
        }
        do {
            _ = try Stub.decodeList(from: Data(#"{"request": {"graphql": {"operation": "A"}}, "response": {"status": 200}}"#.utf8))
            Issue.record("an unknown field was read")
        } catch {
            #expect("\(error)".contains("request.graphql"))
            #expect("\(error)".contains("a graphql pattern has no field \"operation\""))
        }
    }

    @Test("a stub with a graphql pattern answers through the player; in Swift too")
    func answersThroughThePlayer() throws {
        let fromFile = try Stub.decodeList(from: Data(#"""
            {"name": "user 1", "request": {"method": "POST", "path": "/graphql",
              "graphql": {"operationName": "GetUser", "variables": {"id": "1"}}},
             "response": {"status": 200, "body": {"json": {"data": {"user": {"id": "1", "name": "Ada"}}}}}}
            """#.utf8))
        var inSwift = RequestPattern(method: "POST", path: "/graphql")
        inSwift.graphQL = try GraphQLPattern(operationName: "GetUser", variables: .object(["id": .string("2")]))
        let player = Player(cassette: cassette([]), name: "empty.json",
                            stubs: fromFile + [Stub(request: inSwift, response: StubResponse(status: 200, body: Body(text: "two")))])
        #expect(player.play(post(getUser)).servedText?.contains("Ada") == true)
        #expect(player.play(post(#"{"query": "query GetUser($id: ID!) { user(id: $id) { id } }", "variables": {"id": "2"}}"#))
                .servedText == "two")
        let miss = try #require(player.play(post(#"{"query": "query GetUser { me { id } }", "variables": {"id": "3"}}"#)).diagnosis)
        #expect(miss.nearestStubs?.first?.failedField == "graphql.variables")
    }
}
#endif
