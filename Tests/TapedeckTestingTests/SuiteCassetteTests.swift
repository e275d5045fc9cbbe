import Foundation
import Tapedeck
import TapedeckTesting
import Testing

/// The trait on a suite: every test of the suite gets its own cassette and playback state.
@Suite(.cassette("example", directory: sharedCassettes, options: playOnce))
struct SuiteCassetteTests {
    @Test func firstTestPlaysTheImageOnce() async throws {
        let (response, _) = try await TestCassette.connector().send(image(), body: nil)
        #expect(response.status.code == 200)
    }

    @Test func secondTestPlaysTheSameImageOnceToo() async throws {
        let (response, _) = try await TestCassette.connector().send(image(), body: nil)
        #expect(response.status.code == 200)
        await #expect(throws: UnmatchedRequestError.self) { _ = try await TestCassette.connector().send(image(), body: nil) }
    }
}
