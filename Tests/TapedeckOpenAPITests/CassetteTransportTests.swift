import Foundation
import HTTPTypes
import OpenAPIRuntime
import Tapedeck
import TapedeckOpenAPI
import Testing

let exampleCassette: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { url.deleteLastPathComponent() }
    return url.appendingPathComponent("cassettes/example.json")
}()

/// The OpenAPI `ClientTransport` replaying a cassette.
@Suite struct CassetteTransportTests {
    let baseURL = URL(string: "http://api.example.test")!

    @Test func getReplaysTheRecordedBody() async throws {
        let transport = try CassetteTransport(cassette: exampleCassette)
        let (response, body) = try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/plaintext?name=Shawn"),
                                                        body: nil, baseURL: baseURL, operationID: "greet")
        #expect(response.status.code == 200)
        #expect(try await String(collecting: try #require(body), upTo: 1024) == "Hello Shawn!")
    }

    @Test func requestBodyIsMatchedAndABasePathIsPrefixed() async throws {
        let cassette = Cassette(interactions: [Interaction(
            request: CassetteRequest(method: "POST", url: "https://api.example.test/v2/items", headers: ["Content-Type": "application/json"],
                                     body: Body(text: #"{"name":"a"}"#)),
            response: CassetteResponse(status: 201, headers: ["Content-Type": "application/json"], body: Body(text: #"{"id":7}"#)))])
        let transport = CassetteTransport(connector: CassetteConnector(cassette: cassette))
        var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/items")
        request.headerFields[.contentType] = "application/json"
        let (response, body) = try await transport.send(request, body: HTTPBody(#"{"name":"a"}"#),
                                                        baseURL: URL(string: "https://api.example.test/v2/")!, operationID: "createItem")
        #expect(response.status.code == 201)
        #expect(try await String(collecting: try #require(body), upTo: 1024) == #"{"id":7}"#)
        await #expect(throws: UnmatchedRequestError.self) {
            _ = try await transport.send(request, body: HTTPBody(#"{"name":"b"}"#),
                                         baseURL: URL(string: "https://api.example.test/v2")!, operationID: "createItem")
        }
    }

    @Test func unmatchedRequestCarriesTheDiagnosis() async throws {
        let transport = try CassetteTransport(cassette: exampleCassette)
        await #expect {
            _ = try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/plaintext?name=Nobody"),
                                         body: nil, baseURL: baseURL, operationID: "greet")
        } throws: { error in
            (error as? UnmatchedRequestError)?.diagnosis.nearest.first?.url == "http://api.example.test/plaintext?name=Shawn"
        }
    }

    @Test func bodyOverTheLimitIsRefused() async throws {
        let transport = try CassetteTransport(cassette: exampleCassette, maxBodyBytes: 4)
        await #expect(throws: (any Error).self) {
            _ = try await transport.send(HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/postName"),
                                         body: HTTPBody("name=Shawn&sex=1"), baseURL: baseURL, operationID: "postName")
        }
    }
}
