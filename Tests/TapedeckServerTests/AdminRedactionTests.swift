import Foundation
import TapedeckCore
import TapedeckServer
import TapedeckTestSupport
import Testing

/// Every view of requests follows the inspector's redaction (issue "The first hour", point 9),
/// and an upstream that cannot be reached is explained with its fix (point 5).
@Suite struct AdminRedactionTests {
    @Test(.requires(.curl)) func theMissAnswerAndTheAdminViewsDoNotEchoCredentials() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let miss = try await Curl.run(["-H", "Authorization: Bearer live-bearer-token", "-H", "Content-Type: application/json",
                                           "--data", #"{"user": "ada", "password": "live-password"}"#,
                                           harness.base + "/nowhere?api_key=live-api-key"])
            let views = [miss.text,
                         try await Curl.run([harness.base + "/__tapedeck/unmatched"]).text,
                         try await Curl.run([harness.base + "/__tapedeck/journal"]).text,
                         try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"path": "/nowhere"}"#,
                                             harness.base + "/__tapedeck/verify"]).text]
            #expect(views[0].contains("no-match") && views[3].contains("\"count\" : 1"))
            for (number, view) in views.enumerated() {
                for secret in ["live-bearer-token", "live-password", "live-api-key"] {
                    #expect(!view.contains(secret), "view \(number) shows \(secret)")
                }
            }
            #expect(views[0].contains("<redacted>"))
        }
    }

    @Test(.requires(.curl)) func anUnreachableUpstreamIsExplainedWithItsFix() async throws {
        let refusing = try RefusingPort()
        let certificate = try TestCertificate.make()
        let untrusted = try await TestUpstream.start(certificate: certificate)
        defer { Task { try? await untrusted.stop() } }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (target, expected) in [("http://127.0.0.1:\(refusing.port)", "connection refused: nothing listens on that port"),
                                   ("https://localhost:\(untrusted.port)", "pass --upstream-ca FILE")] {
            let settings = RecordSettings(cassette: directory.appending(path: "c.json"), target: try ReverseProxyTarget(target))
            try await RecordHarness.run(settings: settings) { (harness: RecordHarness) async throws in
                let answer = try await Curl.run(["--write-out", "\n%{http_code}", harness.base + "/hello"])
                #expect(answer.text.hasSuffix("\n502"))
                #expect(answer.text.contains(expected), "\(answer.text)")
            }
        }
    }
}
