import Foundation
import TapedeckTestSupport
import Testing

/// The test upstream itself answers, so recording failures point at the proxy.
@Suite struct UpstreamSelfTests {
    @Test(.requires(.curl)) func testUpstreamAnswersCurlDirectly() async throws {
        let upstream = try await TestUpstream.start()
        let result = try await Curl.run([upstream.base + "/plaintext?name=Direct"])
        try await upstream.stop()
        #expect(result.text == "Hello Direct!", "\(result.error)")
    }
}
