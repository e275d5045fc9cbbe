import AsyncHTTPClient
import Foundation
import GreetingKit
import Tapedeck
import TapedeckAsyncHTTPClient
import TapedeckOpenAPI
import TapedeckTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One cassette (a copy of the repository's `cassettes/example.json`), replayed through every door.
@Suite struct GreetingKitTests {
    static let cassettes = CassetteLocation.directory(in: .module)!
    static let cassette = cassettes.appendingPathComponent("greetings.json")
    static let base = "http://api.example.test"

    @Test func urlSessionWithAnInjectedSession() async throws {
        let session = URLSession(configuration: try .replaying(cassette: Self.cassette))
        let client = URLSessionGreetingClient(baseURL: URL(string: Self.base)!, session: session)
        #expect(try await client.greeting(for: "Shawn") == "Hello Shawn!")
    }

    @Test func asyncHTTPClient() async throws {
        let client = AsyncHTTPGreetingClient(baseURL: Self.base, client: try ConnectorHTTPClient.replaying(cassette: Self.cassette))
        #expect(try await client.greeting(for: "Shawn") == "Hello Shawn!")
    }

    @Test func openAPITransport() async throws {
        let client = OpenAPIGreetingClient(serverURL: URL(string: Self.base)!, transport: try CassetteTransport(cassette: Self.cassette))
        #expect(try await client.greeting(for: "Shawn") == "Hello Shawn!")
    }

    @Test(.cassette("greetings", directory: cassettes, requireAllPlayed: false))
    func theTraitGivesTheTestItsConnector() async throws {
        let session = URLSession(configuration: try #require(TestCassette.current).urlSessionConfiguration())
        let client = URLSessionGreetingClient(baseURL: URL(string: Self.base)!, session: session)
        #expect(try await client.greeting(for: "Shawn") == "Hello Shawn!")
    }

    #if !canImport(FoundationNetworking)
    /// Apple platforms: code that uses `URLSession.shared` is replayed with no injected session.
    /// (FoundationNetworking never lets a registered protocol answer `URLSession.shared`.)
    @Test(.cassette("greetings", directory: cassettes, sharedSession: true))
    func sharedSessionWithNoInjection() async throws {
        let client = URLSessionGreetingClient(baseURL: URL(string: Self.base)!)
        #expect(try await client.greeting(for: "Shawn") == "Hello Shawn!")
    }
    #endif

    /// Every platform: `sharedSession: true` runs the test inside `SharedSessionInterception`,
    /// whose connector is the test's own cassette.
    @Test(.cassette("greetings", directory: cassettes, sharedSession: true))
    func sharedSessionTestsRunInsideTheInterception() async throws {
        #expect(SharedSessionInterception.isRunning)
        let connector = try #require(TestCassette.current?.connector as? CassetteConnector)
        let (_, data) = try await connector.send(.init(method: .get, scheme: "http", authority: "api.example.test",
                                                       path: "/plaintext?name=Shawn"), body: nil)
        #expect(String(decoding: data, as: UTF8.self) == "Hello Shawn!")
    }

    /// The trait with stubs, as values and as a closure: what the cassette lacks is answered by them,
    /// through AsyncHTTPClient code.
    @Test(.cassette("greetings", directory: cassettes, stubs: [
        Stub(request: RequestPattern(path: "/plaintext", query: ["name": "Ada"]),
             response: StubResponse(status: 200, body: Body(text: "Stubbed {{query.name}}"), templated: true)),
        Stub(request: RequestPattern(path: "/plaintext")) { request in
            StubResponse(status: 200, body: Body(text: "Computed for \(request.request.target.query ?? "")"))
        },
    ]))
    func theTraitWithStubs() async throws {
        let client = AsyncHTTPGreetingClient(baseURL: Self.base, client: ConnectorHTTPClient(connector: try TestCassette.connector()))
        #expect(try await client.greeting(for: "Shawn") == "Hello Shawn!", "the recording wins")
        #expect(try await client.greeting(for: "Ada") == "Stubbed Ada")
        #expect(try await client.greeting(for: "Grace") == "Computed for name=Grace")
    }
}
