#if GraphQL
import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// GraphQL through the command as a user runs it: a graphql-core service
/// (`scripts/graphql_upstream.py`) recorded by `tapedeck record --target`, then `tapedeck replay`
/// answering curl, which writes each query otherwise than it was recorded.
@Suite struct GraphQLReplayTests {
    static let getUser = "query GetUser($id: ID!) { user(id: $id) { id name } }"
    static let listUsers = "query ListUsers($first: Int, $after: ID) { users(first: $first, after: $after) { id } }"
    static let profile = "query Profile($id: ID!) { user(id: $id) { name email } }"
    static let broken = "query Broken { user(id: ) { name } }"

    /// What one request got: its status and its body as JSON.
    struct Answer {
        var status: Int
        var json: JSONValue?

        /// The value at a path of plain keys (`data`, `user`, `name`).
        func value(_ keys: String...) -> JSONValue? {
            keys.reduce(json) { value, key in
                guard case .object(let members)? = value else { return nil }
                return members[key]
            }
        }
    }

    /// POSTs a GraphQL envelope as JSON.
    static func post(_ base: String, _ envelope: [String: JSONValue]) async throws -> Answer {
        let body = String(decoding: JSONValue.object(envelope).compactData, as: UTF8.self)
        return try await answer(["-H", "Content-Type: application/json", "--data-binary", body, base + "/graphql"])
    }

    /// GETs a query with its variables as URL parameters.
    static func get(_ base: String, query: String, variables: String) async throws -> Answer {
        try await answer(["-G", "--data-urlencode", "query=\(query)", "--data-urlencode", "variables=\(variables)", base + "/graphql"])
    }

    private static func answer(_ arguments: [String]) async throws -> Answer {
        let result = try await Curl.run(["--write-out", "\n%{http_code}"] + arguments)
        let text = result.text
        guard let split = text.lastIndex(of: "\n"), let status = Int(text[text.index(after: split)...]) else {
            Issue.record("curl gave no status: \(text) \(result.error)")
            return Answer(status: 0, json: nil)
        }
        return Answer(status: status, json: JSONValue(parsing: Data(text[..<split].utf8)))
    }

    static func ids(_ values: [String: String]) -> JSONValue { .object(values.mapValues { .string($0) }) }

    @Test(.requires(.python3, .graphqlCore, .curl))
    func recordedOperationsReplayWhenWrittenDifferently() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appending(path: "graphql.json")
        let home = ["TAPEDECK_HOME": directory.appending(path: "home").path]
        let profileHash = GraphQLRequest.persistedQueryHash(of: Self.profile)
        let persisted: JSONValue = .object(["persistedQuery": .object(["version": .integer(1), "sha256Hash": .string(profileHash)])])

        let upstream = try ExampleUpstream(script: "scripts/graphql_upstream.py", arguments: ["--port", "0"])
        defer { upstream.stop() }
        let recorder = try TapedeckProcess(["record", cassette.path, "--target", upstream.baseURL, "--port", "0"], environment: home)
        let recording = "http://127.0.0.1:\(try recorder.waitUntilListening())"
        #expect(try await Self.post(recording, ["query": .string(Self.getUser), "variables": Self.ids(["id": "1"])])
            .value("data", "user", "name") == .string("Ada"))
        #expect(try await Self.post(recording, ["query": .string(Self.getUser), "variables": Self.ids(["id": "2"])]).status == 200)
        #expect(try await Self.get(recording, query: Self.getUser, variables: #"{"id":"1"}"#).status == 200)
        let twoOperations = Self.getUser + "\n" + Self.listUsers
        #expect(try await Self.post(recording, ["query": .string(twoOperations), "operationName": .string("ListUsers"),
                                                "variables": .object(["first": .integer(2), "after": .string("1")])]).status == 200)
        // Apollo's persisted queries: after the service's PersistedQueryNotFound, the query with its hash.
        #expect(try await Self.post(recording, ["query": .string(Self.profile), "variables": Self.ids(["id": "3"]),
                                                "extensions": persisted]).status == 200)
        #expect(try await Self.post(recording, ["query": .string(Self.broken)]).value("errors") != nil)
        recorder.signal(SIGINT)
        #expect(recorder.waitForExit() == 0, "\(recorder.standardError())")
        upstream.stop()

        let replay = try TapedeckProcess(["replay", cassette.path, "--port", "0"], environment: home)
        defer { replay.stop() }
        let base = "http://127.0.0.1:\(try replay.waitUntilListening())"

        // Reformatted: other whitespace, commas, a comment.
        let reformatted = """
            # the client's own spelling
            query GetUser(
              $id: ID!
            ) {
              user(id: $id) { id, name }
            }
            """
        #expect(try await Self.post(base, ["query": .string(reformatted), "operationName": .string("GetUser"), "variables": Self.ids(["id": "2"])])
            .value("data", "user", "name") == .string("Grace"))
        #expect(try await Self.post(base, ["query": .string(reformatted), "variables": Self.ids(["id": "1"])])
            .value("data", "user", "name") == .string("Ada"))
        // Arguments and variable definitions reordered, the operations of the document swapped.
        let reordered = "query ListUsers($after: ID, $first: Int) { users(after: $after, first: $first) { id } } " + Self.getUser
        let listed = try await Self.post(base, ["query": .string(reordered), "operationName": .string("ListUsers"),
                                                "variables": .object(["after": .string("1"), "first": .integer(2)])])
        #expect(listed.value("data", "users") == .array([.object(["id": .string("2")]), .object(["id": .string("3")])]))
        // Over GET.
        #expect(try await Self.get(base, query: reformatted, variables: #"{ "id": "1" }"#).value("data", "user", "name") == .string("Ada"))
        // Only the hash of a persisted query: of one recorded with its hash, and of one recorded without.
        #expect(try await Self.post(base, ["extensions": persisted, "operationName": .string("Profile"), "variables": Self.ids(["id": "3"])])
            .value("data", "user", "email") == .string("edsger@example.test"))
        let getUserHash: JSONValue = .object(["persistedQuery": .object(["version": .integer(1),
                                                                         "sha256Hash": .string(GraphQLRequest.persistedQueryHash(of: Self.getUser))])])
        #expect(try await Self.post(base, ["extensions": getUserHash, "variables": Self.ids(["id": "2"])])
            .value("data", "user", "name") == .string("Grace"))
        // A query that does not parse is matched by its body.
        #expect(try await Self.post(base, ["query": .string(Self.broken)]).value("errors") != nil)

        // A changed variable: 599, the diagnosis, and GraphQL errors a client shows.
        let changed = try await Self.post(base, ["query": .string(reformatted), "variables": Self.ids(["id": "3"])])
        #expect(changed.status == 599)
        #expect(changed.value("errors") == .array([.object(["message": .string(#"GetUser: $.variables.id recorded "1", received "3""#)])]))
        #expect(changed.value("reason") == .string("no-match"))
        #expect(changed.value("nearest") != nil)
        let unknown = try await Self.post(base, ["query": .string("query GetPost { post { title } }")])
        #expect(unknown.value("errors") == .array([.object(["message": .string("no recording has the operation GetPost")])]))
        let unparsable = try await Self.post(base, ["query": .string("query Broken { user(id: ) { name }")])
        #expect(unparsable.status == 599)
        #expect(unparsable.value("errors") == .array([.object([
            "message": .string("the query does not parse: line 1, column 25: Unexpected ); matched by body"),
        ])]))
    }
}
#endif
