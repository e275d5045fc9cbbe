import Foundation
import Testing
@testable import TapedeckCore

@Suite("HEAD, Range and conditional requests")
struct ConditionalMatchTests {
    func served(_ player: Player, _ request: CassetteRequest) -> Interaction? {
        guard case .played(let playback) = player.play(request) else { return nil }
        return playback.interaction
    }

    @Test("HEAD matches a recorded HEAD first, else the recorded GET of the same request")
    func headFallsBackToGet() {
        let get = interaction(request("GET", "/file?v=1"), body: "the whole file")
        let head = interaction(request("HEAD", "/file?v=1"), status: 200, body: "")
        #expect(Matcher(interactions: [get, head]).matches(request("HEAD", "/file?v=1")) == [1])
        #expect(Matcher(interactions: [get]).matches(request("HEAD", "/file?v=1")) == [0])
        #expect(Matcher(interactions: [get]).matches(request("HEAD", "/file?v=2")).isEmpty)
        #expect(Matcher(interactions: [head]).matches(request("GET", "/file?v=1")).isEmpty, "a GET never gets a recorded HEAD")
        let player = Player(cassette: cassette([get]), name: "c")
        let playback = served(player, request("HEAD", "/file?v=1"))
        #expect(playback?.request.method == "GET", "the door sees a GET served for a HEAD")
        #expect(!ResponseBodyRule.sendsBody(status: 200, requestMethod: "HEAD"))
    }

    @Test("a HEAD near miss does not count the recorded GET's method against it")
    func headNearMiss() throws {
        let player = Player(cassette: cassette([interaction(request("GET", "/file?v=1"))]), name: "c")
        let diagnosis = try #require(player.play(request("HEAD", "/file?v=2")).diagnosis)
        #expect(diagnosis.nearest.first?.failedRules == ["query"])
        #expect(diagnosis.rules.contains("method"))
    }

    @Test("a plain request never gets a recorded 206 or 304 while a full answer exists")
    func plainRequestGetsTheFullAnswer() {
        let partial = interaction(request("GET", "/big", headers: ["Range": "bytes=0-99"]), status: 206, body: "first 100")
        let notModified = interaction(request("GET", "/big", headers: ["If-None-Match": "\"v1\""]), status: 304)
        let full = interaction(request("GET", "/big"), body: "everything")
        let matcher = Matcher(interactions: [partial, notModified, full])
        #expect(matcher.matches(request("GET", "/big")) == [2])
        #expect(matcher.matches(request("GET", "/big", headers: ["Range": "bytes=0-99"])) == [0])
        #expect(matcher.matches(request("GET", "/big", headers: ["if-none-match": " \"v1\""])) == [1])
        #expect(matcher.matches(request("GET", "/big", headers: ["Range": "bytes=100-199"])) == [2],
                "another range: the full answer, as a server that ignores Range gives")
        #expect(matcher.matches(request("HEAD", "/big")) == [2], "HEAD falls back the same way")
    }

    @Test("a full answer recorded for a conditional request serves a plain one when nothing plainer exists")
    func fullAnswerToAConditionalRequest() {
        let changed = interaction(request("GET", "/doc", headers: ["If-Modified-Since": "Sat, 04 Mar 2023 18:02:08 GMT"]),
                                  status: 200, body: "new")
        let unchanged = interaction(request("GET", "/doc", headers: ["If-None-Match": "W/\"a\""]), status: 304)
        #expect(Matcher(interactions: [unchanged, changed]).matches(request("GET", "/doc")) == [1])
    }

    @Test("with only 206 or 304 recorded, a plain request still gets them rather than nothing")
    func onlyPartialRecorded() {
        let unchanged = interaction(request("GET", "/doc", headers: ["If-None-Match": "W/\"a\""]), status: 304)
        #expect(Matcher(interactions: [unchanged]).matches(request("GET", "/doc")) == [0])
    }

    @Test("the Player serves the preferred recording in turn, and the others keep their place")
    func playerUsesThePreference() {
        let full = interaction(request("GET", "/page"), body: "page")
        let notModified = interaction(request("GET", "/page", headers: ["If-None-Match": "\"x\""]), status: 304)
        let player = Player(cassette: cassette([full, notModified]), name: "c")
        #expect(served(player, request("GET", "/page"))?.response.status == 200)
        #expect(served(player, request("GET", "/page"))?.response.status == 200, "repeat-last stays on the full answer")
        #expect(served(player, request("GET", "/page", headers: ["If-None-Match": "\"x\""]))?.response.status == 304)
    }

    @Test("headers named with --match-header still compare strictly")
    func matchedHeaderStillStrict() {
        let partial = interaction(request("GET", "/big", headers: ["Range": "bytes=0-99"]), status: 206)
        let matcher = Matcher(interactions: [partial], options: MatchOptions(matchedHeaders: ["Range"]))
        #expect(matcher.matches(request("GET", "/big")).isEmpty)
        #expect(matcher.matches(request("GET", "/big", headers: ["Range": "bytes=0-99"])) == [0])
    }
}
