import Foundation
import Testing
import Tapedeck
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(FoundationNetworking)
/// A replayed 401 with a challenge reaches the caller as a response, never as a hang or a live retry
/// (FoundationNetworking only: Apple's loading system delivers the challenge header as it is).
@Suite struct URLProtocolChallengeTests {
    @Test(arguments: [#"Basic realm="api""#, #"Bearer realm="api", error="invalid_token""#])
    func replayedUnauthorizedChallengeArrivesUnderTheTapedeckHeaderInsteadOfHanging(challenge: String) async throws {
        let cassette = Cassette(interactions: [Interaction(
            request: CassetteRequest(method: "GET", url: "http://api.example.test/me"),
            response: CassetteResponse(status: 401, headers: ["WWW-Authenticate": challenge], body: Body(text: "denied")))])
        let session = URLSession(configuration: .replaying(CassetteConnector(cassette: cassette)))
        let (data, response) = try await session.data(from: URL(string: "http://api.example.test/me")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 401)
        #expect(http.value(forHTTPHeaderField: "WWW-Authenticate") == nil)
        #expect(http.value(forHTTPHeaderField: "Tapedeck-WWW-Authenticate") == challenge)
        #expect(String(decoding: data, as: UTF8.self) == "denied")
    }
}
#endif
