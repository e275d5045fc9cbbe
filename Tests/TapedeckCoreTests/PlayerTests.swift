import Foundation
import Testing
@testable import TapedeckCore

@Suite("Playback: order, exhaustion, sessions and diagnosis")
struct PlayerTests {
    func poller(_ policy: ExhaustionPolicy) -> Player {
        let interactions = (1...3).map { interaction(request("GET", "/poll"), body: "answer \($0)") }
        return Player(cassette: cassette(interactions), name: "poll.json", options: PlaybackOptions(exhaustion: policy))
    }

    @Test("the first interaction not yet played is served, in recorded order")
    func recordedOrder() {
        let player = poller(.repeatLast)
        #expect((0..<3).map { _ in player.play(request("GET", "/poll")).servedText } == ["answer 1", "answer 2", "answer 3"])
    }

    @Test("repeat-last serves the last one again", arguments: [
        (ExhaustionPolicy.repeatLast, ["answer 3", "answer 3"]),
        (ExhaustionPolicy.cycle, ["answer 1", "answer 2"]),
    ])
    func exhaustedPolicies(policy: ExhaustionPolicy, expected: [String]) {
        let player = poller(policy)
        for _ in 0..<3 { _ = player.play(request("GET", "/poll")) }
        #expect((0..<2).map { _ in player.play(request("GET", "/poll")).servedText ?? "miss" } == expected)
    }

    @Test("error treats an exhausted request as unmatched, reported as exhausted")
    func errorPolicy() throws {
        let player = poller(.error)
        for _ in 0..<3 { _ = player.play(request("GET", "/poll")) }
        let diagnosis = try #require(player.play(request("GET", "/poll")).diagnosis)
        #expect(diagnosis.reason == .exhausted)
        #expect(diagnosis.nearest.map(\.index) == [0, 1, 2])
        #expect(diagnosis.description.contains("already played"))
    }

    @Test("sessions have their own playback positions")
    func sessions() {
        let player = poller(.error)
        #expect(player.play(request("GET", "/poll"), session: "a").servedText == "answer 1")
        #expect(player.play(request("GET", "/poll"), session: "b").servedText == "answer 1")
        #expect(player.play(request("GET", "/poll"), session: "a").servedText == "answer 2")
        player.reset()
        #expect(player.play(request("GET", "/poll"), session: "a").servedText == "answer 1")
    }

    @Test("concurrent requests never play one interaction twice under error")
    func concurrentPlays() async {
        let interactions = (0..<50).map { interaction(request("GET", "/item"), body: "\($0)") }
        let player = Player(cassette: cassette(interactions), name: "c", options: PlaybackOptions(exhaustion: .error))
        let served = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<200 { group.addTask { player.play(request("GET", "/item")).servedText } }
            return await group.reduce(into: [String]()) { if let text = $1 { $0.append(text) } }
        }
        #expect(served.count == 50)
        #expect(Set(served).count == 50)
    }

    @Test("a miss hints at what fits what the player serves: recordings, stubs, both, or nothing")
    func missHints() throws {
        let stub = Stub(name: "flag", request: RequestPattern(method: "GET", path: "/flags"), response: StubResponse(status: 200))
        func hint(recordings: [Interaction], stubs: [Stub]) throws -> String {
            let player = Player(cassette: cassette(recordings), name: "c.json", stubs: stubs)
            return try #require(player.play(request("POST", "/flags")).diagnosis).hint
        }
        let recorded = [interaction(request("GET", "/users"))]
        #expect(try hint(recordings: recorded, stubs: []).contains("Record it with mode new-episodes"))
        let both = try hint(recordings: recorded, stubs: [stub])
        #expect(both.contains("Record it") && both.contains("add a stub"), "\(both)")
        let stubsOnly = try hint(recordings: [], stubs: [stub])
        #expect(!stubsOnly.contains("ecord"), "\(stubsOnly)")
        #expect(stubsOnly.contains(#"stub "flag" (stub-1) failed on method"#) && stubsOnly.contains("add a stub"), "\(stubsOnly)")
        let nothing = try hint(recordings: [], stubs: [])
        #expect(nothing.contains("no interactions and there are no stubs"), "\(nothing)")
    }

    @Test("a playback names its source: the interaction's place, or the stub by its name")
    func playbackSource() throws {
        let player = Player(cassette: cassette([interaction(request("GET", "/users"))]), name: "c.json",
                            stubs: [Stub(name: "flag", request: RequestPattern(path: "/flags"), response: StubResponse(status: 200))])
        guard case .played(let recorded) = player.play(request("GET", "/users")),
              case .played(let stubbed) = player.play(request("GET", "/flags")) else {
            Issue.record("not played")
            return
        }
        #expect(recorded.source == "interaction 0 of c.json")
        #expect(stubbed.source == #"stub "flag" (stub-1)"#)
    }

    @Test("a miss names the nearest recorded requests, the rules they failed and a readable difference")
    func nearMisses() throws {
        let json: HeaderList = ["Content-Type": "application/json"]
        let player = Player(cassette: cassette([
            interaction(request("GET", "/users?page=1")),
            interaction(request("POST", "/users", headers: json, body: #"{"name": "Shawn", "age": 30}"#)),
            interaction(request("DELETE", "/other")),
            interaction(request("POST", "/users", headers: json, body: #"{"name": "Shawn", "age": 31, "x": 1}"#)),
        ]), name: "users.json")
        let diagnosis = try #require(player.play(request("POST", "/users", headers: json, body: #"{"age": 30, "name": "Sean"}"#)).diagnosis)
        #expect(diagnosis.reason == .noMatch)
        #expect(diagnosis.cassettes == ["users.json"])
        #expect(diagnosis.nearest.count == 3)
        let nearest = diagnosis.nearest[0]
        #expect(nearest.index == 1)
        #expect(nearest.failedRules == ["body"])
        #expect(nearest.differences == [#"at $.name recorded "Shawn", received "Sean""#])
        #expect(diagnosis.nearest[1].index == 3)
        #expect(diagnosis.description.contains("no recorded interaction matches POST /users"))
        #expect(diagnosis.description.contains(#"body: at $.name recorded "Shawn", received "Sean""#))
    }

    @Test("query differences say what is missing and what is extra")
    func queryDifference() throws {
        let player = Player(cassette: cassette([interaction(request("GET", "/s?a=1&b=2"))]), name: "s")
        let diagnosis = try #require(player.play(request("GET", "/s?a=1&c=3")).diagnosis)
        #expect(diagnosis.nearest[0].differences == ["recorded has b=2 that the request lacks; the request has c=3 that was not recorded"])
    }

    @Test("the diagnosis is JSON for the replay server's 599 body")
    func diagnosisJSON() throws {
        let player = Player(cassette: cassette([interaction(request("GET", "/a"))]), name: "a.json")
        let diagnosis = try #require(player.play(request("GET", "/b")).diagnosis)
        let decoded = try JSONDecoder().decode(MatchDiagnosis.self, from: JSONEncoder().encode(diagnosis))
        #expect(decoded == diagnosis)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(diagnosis)) as? [String: Any])
        #expect(object["reason"] as? String == "no-match")
        #expect(Set(object.keys).isSuperset(of: ["request", "cassettes", "rules", "nearest"]))
    }

    @Test("several cassettes are searched in order and positions are per cassette")
    func multipleCassettes() throws {
        let player = Player(cassettes: [
            ("one.json", cassette([interaction(request("GET", "/a"), body: "one")])),
            ("two.json", cassette([interaction(request("GET", "/b"), body: "two")])),
        ])
        guard case .played(let playback) = player.play(request("GET", "/b")) else { Issue.record("miss"); return }
        #expect(playback.cassette == "two.json")
        #expect(playback.index == 0)
        #expect(player.playedCounts().map(\.cassette) == ["two.json"])
    }

    @Test("a trial (a chat tried as its messages come) plays a recording, or leaves no trace")
    func trials() {
        let stub = Stub(name: "any", request: RequestPattern(path: "/{any}"), response: StubResponse(status: 200, body: Body(text: "stub")))
        let player = Player(cassette: cassette([interaction(request("GET", "/poll"), body: "answer 1")]), name: "poll.json",
                            options: PlaybackOptions(exhaustion: .error), stubs: [stub])
        #expect(player.playRecording(request("GET", "/other"))?.interaction.response.body.text == nil,
                "the stub that would answer it is not consulted")
        #expect(player.playRecording(request("GET", "/poll"))?.interaction.response.body.text == "answer 1")
        #expect(player.stubs.verify(RequestPattern()).isEmpty, "neither a miss nor a play is logged: the caller logs what was sent")
        #expect(player.playRecording(request("GET", "/poll"))?.interaction.response.body.text == nil, "exhausted under error")

        var sent = request("GET", "/poll")
        sent.body = Body(text: "what the client sent")
        player.logReceived(sent)
        #expect(player.stubs.verify(RequestPattern()).map(\.body.text) == ["what the client sent"])
        #expect(player.play(request("GET", "/other")).servedText == "stub", "played whole, the stub answers")
        #expect(player.stubs.verify(RequestPattern()).count == 2, "and it is logged as it is played")
    }
}
