import Foundation
import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// A page on another loopback port, and a made-up name that resolves to 127.0.0.1 (DNS
/// rebinding), try the admin API in headless Chromium, as the attacker's probe did: nothing
/// they send changes the server, and the server's own inspector page keeps working.
@Suite(.enabled(if: Chromium.path != nil, Comment(rawValue: Chromium.missing)))
struct CrossSiteTests {
    /// The attacker's page: a no-cors fetch that adds a stub, then a text/plain form that resets.
    private static func attackPage(victim: String) -> String {
        """
        <!doctype html><html><body><p id="state">loading</p>
        <iframe name="sink" style="display:none"></iframe>
        <form id="reset" method="POST" enctype="text/plain" target="sink" action="\(victim)/__tapedeck/reset"><input name='{"a":"' value='"}'></form>
        <script>
        fetch('\(victim)/__tapedeck/stubs', { method: 'POST', mode: 'no-cors',
              body: JSON.stringify({ request: { path: '/planted' }, response: { status: 200, body: { text: 'planted' } } }) })
          .then(() => { document.getElementById('state').textContent = 'fetch sent'; document.getElementById('reset').submit(); })
          .catch((error) => { document.getElementById('state').textContent = 'fetch failed ' + error; document.getElementById('reset').submit(); });
        </script></body></html>
        """
    }

    @Test(.requires(.curl, .python3)) func aPageElsewhereCannotAddStubsOrResetTheJournal() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (victim: ReplayHarness) async throws in
            _ = try await Curl.run([victim.base + "/plaintext?name=Shawn"])
            try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (attacker: ReplayHarness) async throws in
                attacker.responder.deck.player.stubs.add([Stub(
                    request: RequestPattern(path: "/attack"),
                    response: StubResponse(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"],
                                           body: Body(text: Self.attackPage(victim: victim.base))))])
                let dom = try await Chromium.dumpDOM(attacker.base + "/attack", budgetMs: 8000)
                #expect(dom.contains("fetch sent"), "the page ran: \(dom.prefix(2000))")
            }
            #expect(victim.responder.deck.player.stubs.list().isEmpty, "no stub was planted")
            #expect(!victim.responder.journal.document().entries.isEmpty, "the journal was not emptied")
        }
    }

    @Test(.requires(.python3)) func aRebindingNameCannotReachTheAdminAPI() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let port = try #require(harness.server.url.split(separator: ":").last.map(String.init))
            let dom = try await Chromium.dumpDOM("http://attacker.test:\(port)/__tapedeck/health",
                                                 flags: ["--host-resolver-rules=MAP attacker.test 127.0.0.1, \(Chromium.onlyLoopback)"])
            #expect(dom.contains("admin paths answer only a Host that is this server's own"), "\(dom.prefix(2000))")
            #expect(!dom.contains("\"status\""))
            // The same page by the server's own name answers.
            let own = try await Chromium.dumpDOM("http://localhost:\(port)/__tapedeck/health")
            #expect(own.contains("\"status\" : \"ok\""), "\(own.prefix(2000))")
        }
    }
}
