import Foundation
import Testing
import Tapedeck
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The base configuration's `httpAdditionalHeaders` reach the cassette, as URLSession would send them.
@Suite struct URLProtocolAdditionalHeadersTests {
    @Test func additionalHeadersOfTheBaseConfigurationAreMatched() async throws {
        let cassette = Cassette(interactions: [Interaction(
            request: CassetteRequest(method: "GET", url: "http://api.example.test/whoami", headers: ["X-Client": "tests"]),
            response: CassetteResponse(status: 200, body: Body(text: "tests")))])
        let options = PlaybackOptions(match: MatchOptions(matchedHeaders: ["X-Client"]))
        let base = URLSessionConfiguration.ephemeral
        base.httpAdditionalHeaders = ["X-Client": "tests"]
        let url = URL(string: "http://api.example.test/whoami")!
        let withHeader = URLSession(configuration: .replaying(CassetteConnector(cassette: cassette, options: options), base: base))
        let (data, _) = try await withHeader.data(from: url)
        #expect(String(decoding: data, as: UTF8.self) == "tests")
        var overridden = URLRequest(url: url)
        overridden.setValue("other", forHTTPHeaderField: "X-Client")
        await #expect(throws: UnmatchedRequestError.self) { _ = try await withHeader.data(for: overridden) }
        let withoutHeader = URLSession(configuration: .replaying(CassetteConnector(cassette: cassette, options: options)))
        await #expect(throws: UnmatchedRequestError.self) { _ = try await withoutHeader.data(from: url) }
    }
}
