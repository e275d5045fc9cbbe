import Foundation
import HTTPTypes
import Tapedeck
import TapedeckTestSupport
import Testing

/// Secrets, expiry and Swift hooks, through the in-process connectors.
@Suite("The cassette's lifecycle in the connector", .serialized)
struct LifecycleTests {
    static let token = "team-token-8f2k1"
    static let tokenHeader = HTTPField.Name("X-Team-Token")!

    func request(_ authority: String, _ path: String, token: String) -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: "http", authority: authority, path: path)
        request.headerFields[Self.tokenHeader] = token
        return request
    }

    @Test("a secret echoed by the upstream in a header and a JSON body never lands in the cassette, and is restored upstream", .requires(.python3))
    func secretsNeverReachTheCassette() async throws {
        let upstream = try EchoUpstream(routes: ["/me": EchoUpstream.route(body: ["id": 7], requireHeader: ("X-Team-Token", Self.token),
                                                                            echoHeader: "X-Team-Token")])
        defer { upstream.stop() }
        let file = try makeTemporaryDirectory().appendingPathComponent("secrets.json")
        var options = PlaybackOptions(secrets: try Secrets(["TEAM_TOKEN": Self.token]))
        let recorder = try RecordingConnector(cassette: file, mode: .all, options: options, environment: [:])
        // The code under test holds only the placeholder: the recorder puts the real value back for the upstream.
        let (placeholderResponse, placeholderBody) = try await recorder.send(request(upstream.authority, "/me", token: "<TEAM_TOKEN>"), body: nil)
        #expect(placeholderResponse.status == .ok, "the upstream received the real token, not a 401")
        #expect(String(decoding: placeholderBody, as: UTF8.self).contains(Self.token))
        let (liveResponse, _) = try await recorder.send(request(upstream.authority, "/me", token: Self.token), body: nil)
        #expect(liveResponse.status == .ok)
        try recorder.flush()
        upstream.stop()

        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains(Self.token), "the live value is nowhere in the cassette")
        let saved = try CassetteCodec().load(file)
        #expect(saved.interactions.count == 2)
        #expect(saved.interactions.allSatisfy { $0.request.headers["X-Team-Token"] == "<TEAM_TOKEN>" })
        #expect(saved.interactions.allSatisfy { $0.response.headers["X-Echo"] == "<TEAM_TOKEN>" })
        #expect(saved.interactions.allSatisfy { $0.response.body.text?.contains("<TEAM_TOKEN>") == true })

        // Replay: a live request carrying the real value matches the placeholder, even with the header matched.
        options.match.matchedHeaders = ["X-Team-Token"]
        let replay = try CassetteConnector(cassette: file, options: options)
        let (replayed, _) = try await replay.send(request(upstream.authority, "/me", token: Self.token), body: nil)
        #expect(replayed.status == .ok)
        await #expect(throws: UnmatchedRequestError.self) {
            _ = try await replay.send(self.request(upstream.authority, "/me", token: "another-value-99"), body: nil)
        }
    }

    static let old = Cassette(interactions: [Interaction(
        recordedAt: "2026-01-01T00:00:00.000Z",
        request: CassetteRequest(method: "GET", url: "http://api.example.test/plaintext?name=Shawn"),
        response: CassetteResponse(status: 200, body: Body(text: "Hello Shawn!")))])
    static let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_779_000_000) }  // 2026-05-17, 136 days later
    static let get = HTTPRequest(method: .get, scheme: "http", authority: "api.example.test", path: "/plaintext?name=Shawn")

    @Test("expiry warn: served, with Tapedeck-Warning: expired")
    func expiryWarn() async throws {
        let connector = CassetteConnector(cassette: Self.old, options: PlaybackOptions(expiry: ExpiryOptions(days: 30, policy: .warn)),
                                          hooks: PlaybackHooks(now: Self.now))
        let (response, data) = try await connector.send(Self.get, body: nil)
        #expect(response.headerFields[HTTPField.Name("Tapedeck-Warning")!] == "expired")
        #expect(String(decoding: data, as: UTF8.self) == "Hello Shawn!")
        let fresh = CassetteConnector(cassette: Self.old, options: PlaybackOptions(expiry: ExpiryOptions(days: 365, policy: .warn)),
                                      hooks: PlaybackHooks(now: Self.now))
        #expect(try await fresh.send(Self.get, body: nil).0.headerFields[HTTPField.Name("Tapedeck-Warning")!] == nil)
    }

    @Test("expiry error: a thrown error that says how to re-record; the cassette's meta.expireAfterDays applies too")
    func expiryError() async throws {
        var cassette = Self.old
        cassette.meta.expireAfterDays = 90
        let connector = CassetteConnector(cassette: cassette, options: PlaybackOptions(expiry: ExpiryOptions(policy: .error)),
                                          hooks: PlaybackHooks(now: Self.now))
        let error = try await #require(throws: UnmatchedRequestError.self) { try await connector.send(Self.get, body: nil) }
        #expect(error.diagnosis.reason == .expired)
        #expect(error.description.contains("has expired"))
        #expect(error.description.contains("--on-expired rerecord"))
    }

    @Test("expiry rerecord: in a recording mode the expired interaction is recorded again from the live service", .requires(.python3))
    func expiryRerecord() async throws {
        let upstream = try ExampleUpstream()
        defer { upstream.stop() }
        let file = try makeTemporaryDirectory().appendingPathComponent("expired.json")
        var cassette = Self.old
        cassette.interactions[0].request.url = "\(upstream.baseURL)/plaintext?name=Shawn"
        cassette.interactions[0].response.body = Body(text: "stale answer")
        try CassetteCodec().save(cassette, to: file)
        let recorder = try RecordingConnector(cassette: file, mode: .newEpisodes,
                                              options: PlaybackOptions(expiry: ExpiryOptions(days: 30, policy: .rerecord)),
                                              hooks: PlaybackHooks(now: Self.now), environment: [:])
        var get = Self.get
        get.authority = upstream.authority
        let (_, data) = try await recorder.send(get, body: nil)
        #expect(String(decoding: data, as: UTF8.self) == "Hello Shawn!", "the live answer, not the stale one")
        try recorder.flush()
        #expect(try CassetteCodec().load(file).interactions.count == 2)
    }

    @Test("a custom rule narrows the match and is named in the diagnosis")
    func customRule() async throws {
        var cassette = Self.old
        cassette.interactions[0].request.headers = ["X-Tenant": "blue"]
        let rule = CustomMatchRule("same tenant") { recorded, incoming in recorded.headers["X-Tenant"] == incoming.headers["X-Tenant"] }
        let connector = CassetteConnector(cassette: cassette, hooks: PlaybackHooks(rules: [rule]))
        var blue = Self.get
        blue.headerFields[HTTPField.Name("X-Tenant")!] = "blue"
        #expect(try await connector.send(blue, body: nil).0.status == .ok)
        var red = blue
        red.headerFields[HTTPField.Name("X-Tenant")!] = "red"
        let error = try await #require(throws: UnmatchedRequestError.self) { try await connector.send(red, body: nil) }
        #expect(error.diagnosis.nearest.first?.failedRules == ["same tenant"])
        #expect(error.description.contains(#"custom rule "same tenant""#))
    }

    @Test("beforePlayback echoes the request id into the response; beforeRecord changes what is written", .requires(.python3))
    func hooksChangeInteractions() async throws {
        let echo = PlaybackHooks(beforePlayback: { interaction, request in
            var changed = interaction
            changed.response.headers.set(name: "X-Request-Id", value: request.headers["X-Request-Id"] ?? "none")
            return changed
        })
        var get = Self.get
        get.headerFields[HTTPField.Name("X-Request-Id")!] = "req-42"
        let (response, _) = try await CassetteConnector(cassette: Self.old, hooks: echo).send(get, body: nil)
        #expect(response.headerFields[HTTPField.Name("X-Request-Id")!] == "req-42")

        let upstream = try ExampleUpstream()
        defer { upstream.stop() }
        let file = try makeTemporaryDirectory().appendingPathComponent("hooked.json")
        let stamp = PlaybackHooks(beforeRecord: { interaction in
            var changed = interaction
            changed.response.headers.remove("Date")
            changed.response.headers.set(name: "X-Recorded-By", value: "hook")
            return changed
        })
        let recorder = try RecordingConnector(cassette: file, mode: .all, hooks: stamp, environment: [:])
        get.authority = upstream.authority
        _ = try await recorder.send(get, body: nil)
        try recorder.flush()
        let saved = try CassetteCodec().load(file).interactions[0].response.headers
        #expect(saved["X-Recorded-By"] == "hook")
        #expect(saved["Date"] == nil)
    }
}
