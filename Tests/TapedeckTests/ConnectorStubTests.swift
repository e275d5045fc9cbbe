import Foundation
import HTTPTypes
import Tapedeck
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Stubs in the connector: values, closures, faults, run-time stubs and verify")
struct ConnectorStubTests {
    static let example = repositoryRoot.appendingPathComponent("cassettes/stubs-example.json")

    func get(_ path: String) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: path)
    }

    @Test("stub values and closures answer what no recording holds")
    func valuesAndClosures() async throws {
        let connector = CassetteConnector(stubs: [
            Stub(request: RequestPattern(method: "GET", path: "/users/{id}"),
                 response: StubResponse(status: 200, body: Body(text: "user {{path.id}}"), templated: true)),
            Stub(request: RequestPattern(method: "GET", path: "/time")) { request in
                StubResponse(status: 200, body: Body(text: "computed for \(request.request.url)"))
            },
        ])
        #expect(String(decoding: try await connector.send(get("/users/7"), body: nil).1, as: UTF8.self) == "user 7")
        #expect(String(decoding: try await connector.send(get("/time"), body: nil).1, as: UTF8.self) == "computed for https://api.example.test/time")
    }

    @Test("a fault throws the error URLSession would: connection lost, bad server response")
    func faultsThrowURLErrors() async throws {
        let connector = CassetteConnector(stubs: StubFault.allCases.map { fault in
            Stub(request: RequestPattern(path: "/\(fault.rawValue)"), response: StubResponse(fault: fault))
        })
        for fault in StubFault.allCases {
            let error = try await #require(throws: URLError.self) { try await connector.send(get("/\(fault.rawValue)"), body: nil) }
            #expect(error.code == (fault == .malformed ? .badServerResponse : .networkConnectionLost))
        }
        let session = URLSession(configuration: .replaying(connector))
        await #expect(throws: URLError.self) { _ = try await session.data(from: URL(string: "https://api.example.test/reset")!) }
    }

    @Test("a running test adds a stub, and verifies what its client sent")
    func runTimeStubAndVerify() async throws {
        let connector = try CassetteConnector(cassette: Self.example)
        connector.stubs.add([Stub(request: RequestPattern(method: "POST", path: "/audit"), response: StubResponse(status: 202))])
        var post = HTTPRequest(method: .post, scheme: "https", authority: "api.example.test", path: "/audit")
        post.headerFields[.contentType] = "application/json"
        for sku in ["A", "B", "A"] {
            #expect(try await connector.send(post, body: Data(#"{"sku": "\#(sku)"}"#.utf8)).0.status.code == 202)
        }
        #expect(connector.verify(RequestPattern(method: "POST", path: "/audit")).count == 3)
        #expect(connector.verify(RequestPattern(path: "/audit", json: .object(["sku": .string("A")]))).count == 2)
    }

    @Test("the example stub file walks its 503-then-201 scenario through URLSession")
    func scenarioThroughURLSession() async throws {
        let session = URLSession(configuration: try .replaying(cassette: Self.example))
        var request = URLRequest(url: URL(string: "https://api.example.test/checkout")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"cart": ["book"]}"#.utf8)
        let statuses = try await [session.data(for: request), session.data(for: request)].map { ($0.1 as? HTTPURLResponse)?.statusCode }
        #expect(statuses == [503, 201])
    }
}
