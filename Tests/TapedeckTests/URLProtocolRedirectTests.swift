import Foundation
import Testing
import Tapedeck
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirects are answers too: a replayed 3xx is handed over, never followed to the network.
@Suite struct URLProtocolRedirectTests {
    @Test func replayedRedirectIsDeliveredNotFollowed() async throws {
        let cassette = Cassette(interactions: [Interaction(
            request: CassetteRequest(method: "GET", url: "http://api.example.test/old"),
            response: CassetteResponse(status: 302, headers: ["Location": "http://api.example.test/new"]))])
        let session = URLSession(configuration: .replaying(CassetteConnector(cassette: cassette)))
        let (data, response) = try await session.data(from: URL(string: "http://api.example.test/old")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 302)
        #expect(http.value(forHTTPHeaderField: "Location") == "http://api.example.test/new")
        #expect(data.isEmpty)
    }
}
