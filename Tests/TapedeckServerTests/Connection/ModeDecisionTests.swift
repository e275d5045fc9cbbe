import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import TapedeckServer
import TapedeckCore
import Testing

/// The modes decide without a connection: a request in, a ``Decision`` out. What carries the
/// decision out (``FrontDoor`` on a ``ResponseSink``) is tested over sockets and `EmbeddedChannel`.
@Suite struct ModeDecisionTests {
    private func request(_ uri: String, method: HTTPMethod = .GET, headers: [(String, String)] = [("Host", "api.example.test")]) -> IncomingRequest {
        try! IncomingRequest(HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: HTTPHeaders(headers)),
                             body: ByteBuffer(), tunnelOrigin: nil, arrival: .now())
    }

    private func decide(_ mode: any Mode, _ request: IncomingRequest) -> Decision {
        mode.decide(request, control: ControlHeaders(request.head.headerFields), quickly: false)!
    }

    private func replayMode(library: CassetteLibrary? = nil) throws -> ReplayMode {
        let home = try Fixtures.temporaryDirectory()
        let configuration = ServerConfiguration(port: 0, authorityHome: home)
        let deck = try ReplayMode.loadDeck(files: [Fixtures.exampleCassette], options: PlaybackOptions())
        return ReplayMode(deck: deck, library: library, configuration: configuration, authority: CertificateAuthority(home: home))
    }

    private func recordingMode(target: String?, cassette: URL) throws -> RecordingMode {
        let home = try Fixtures.temporaryDirectory()
        return try RecordingMode(settings: RecordSettings(cassette: cassette, target: try target.map { try ReverseProxyTarget($0) }),
                                 configuration: ServerConfiguration(port: 0, authorityHome: home),
                                 authority: CertificateAuthority(home: home), logger: Logger(label: "tapedeck.test"))
    }

    @Test func replayPlaysWhatMatchesAndDiagnosesWhatDoesNot() throws {
        let mode = try replayMode()
        guard case .play(let playback, let prepared, let played, let session) = decide(mode, request("/plaintext?name=Shawn")) else {
            Issue.record("a recorded request is played")
            return
        }
        #expect(playback.index == 0)
        #expect(prepared.head.status == .ok)
        #expect(played.url == "/plaintext?name=Shawn")
        #expect(session == "")
        guard case .unmatched(let diagnosis, _, _) = decide(mode, request("/never-recorded")) else {
            Issue.record("an unknown request is unmatched")
            return
        }
        #expect(diagnosis.reason == .noMatch)
    }

    @Test func replayRefusesACassetteSelectionWithoutALibrary() throws {
        let decision = decide(try replayMode(), request("/plaintext?name=Shawn", headers: [("Host", "x"), ("Tapedeck-Cassette", "other")]))
        guard case .refuse(let refusal) = decision else {
            Issue.record("refused, got \(decision)")
            return
        }
        #expect(refusal.status == .badRequest)
        #expect(refusal.code == "bad-request")
        #expect(refusal.reason.contains("--cassette-dir"))
    }

    @Test func recordingForwardsWhatIsNewAndPlaysWhatItHolds() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appending(path: "c.json")
        try FileManager.default.copyItem(at: Fixtures.exampleCassette, to: cassette)
        let mode = try recordingMode(target: nil, cassette: cassette)  // a forward proxy: absolute-form requests
        guard case .forward(let forwarding) = decide(mode, request("http://127.0.0.1:9/new")) else {
            Issue.record("a new request is forwarded")
            return
        }
        #expect(forwarding.target.host == "127.0.0.1")
        #expect(forwarding.target.port == 9)
        #expect(forwarding.record, "what is new is recorded")
        #expect(mode.exchangesUnderWay == 0, "deciding starts nothing")
        guard case .play = decide(mode, request("http://api.example.test/plaintext?name=Shawn")) else {
            Issue.record("what the cassette holds is played (new-episodes)")
            return
        }
    }

    @Test func recordingForwardsAStreamedCallAsItArrivesOnlyWhenTheCassetteCouldNotAnswerIt() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mode = try recordingMode(target: "http://127.0.0.1:9", cassette: folder.appending(path: "c.json"))
        let grpc = [("Host", "x"), ("Content-Type", "application/grpc")]
        var call = request("/demo.Greeter/Chat", method: .POST, headers: grpc)
        call.bodyStream = RequestBodyStream(eventLoop: EmbeddedEventLoop())
        guard case .forward(let forwarding) = mode.decideStreaming(call, control: ControlHeaders(call.head.headerFields)) else {
            Issue.record("an empty cassette cannot answer the call: it goes as it arrives")
            return
        }
        #expect(forwarding.request.bodyStream != nil)
        #expect(forwarding.record)

        // Once the cassette holds a call of that method and path, a call may be replayed: it is taken whole.
        let cassette = folder.appending(path: "chat.json")
        let recorded = Interaction(request: CassetteRequest(method: "POST", url: "http://127.0.0.1:9/demo.Greeter/Chat",
                                                            headers: HeaderList([HeaderField(name: "Content-Type", value: "application/grpc")])),
                                   response: CassetteResponse(status: 200))
        try CassetteCodec().save(Cassette(interactions: [recorded]), to: cassette)
        let holding = try recordingMode(target: "http://127.0.0.1:9", cassette: cassette)
        #expect(holding.decideStreaming(call, control: ControlHeaders(call.head.headerFields)).map { "\($0)" } == nil)
        // A replay server holding no recorded chat of the method decides the call whole.
        #expect(try replayMode().decideStreaming(call, control: ControlHeaders(call.head.headerFields)).map { "\($0)" } == nil)
    }

    @Test func recordingWithoutATargetRefusesAnOriginFormRequest() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let mode = try recordingMode(target: nil, cassette: folder.appending(path: "c.json"))
        for upgrade in [[], [("Upgrade", "websocket"), ("Connection", "Upgrade")]] {
            let decision = decide(mode, request("/anything", headers: [("Host", "x")] + upgrade))
            guard case .refuse(let refusal) = decision else {
                Issue.record("refused, got \(decision)")
                continue
            }
            #expect(refusal.reason.contains("--target"))
        }
    }

    @Test func recordingRecordsAWebSocketUpgradeAndRelaysOneToAPassthroughHost() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let upgrade = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Tapedeck-Session", "s1")]
        let mode = try recordingMode(target: "http://127.0.0.1:9", cassette: folder.appending(path: "c.json"))
        let decision = decide(mode, request("/socket?x=1", headers: [("Host", "x")] + upgrade))
        guard case .webSocket(let recording) = decision else {
            Issue.record("recorded, got \(decision)")
            return
        }
        #expect(recording.host == "127.0.0.1" && recording.port == 9 && recording.tls == nil)
        #expect(recording.head.uri == "/socket?x=1")
        #expect(recording.head.headers["Host"] == ["127.0.0.1:9"])
        #expect(recording.head.headers["Tapedeck-Session"].isEmpty, "control headers stay with the proxy")
        #expect(recording.cassetteRequest.url == "http://127.0.0.1:9/socket?x=1")
        #expect(mode.exchangesUnderWay == 0, "deciding starts nothing")

        let home = try Fixtures.temporaryDirectory()
        let settings = RecordSettings(cassette: folder.appending(path: "p.json"), target: try ReverseProxyTarget("http://127.0.0.1:9"),
                                      passthroughHosts: ["127.0.0.1"])
        let passing = try RecordingMode(settings: settings, configuration: ServerConfiguration(port: 0, authorityHome: home),
                                        authority: CertificateAuthority(home: home), logger: Logger(label: "tapedeck.test"))
        guard case .tunnel(let tunnel) = decide(passing, request("/socket?x=1", headers: [("Host", "x")] + upgrade)) else {
            Issue.record("a passthrough host's upgrade is relayed untouched")
            return
        }
        #expect(String(buffer: tunnel.initialBytes).hasPrefix("GET /socket?x=1 HTTP/1.1\r\n"))
        #expect(String(buffer: tunnel.initialBytes).contains("Host: 127.0.0.1:9\r\n"))
        guard case .forward(let forwarding) = decide(passing, request("/plain", headers: [("Host", "x")])) else {
            Issue.record("a passthrough host's request is forwarded")
            return
        }
        #expect(!forwarding.record, "and not recorded")
    }

    @Test func theFrontDoorRelaysPassthroughHostsAndInterceptsTheRest() throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let home = try Fixtures.temporaryDirectory()
        let settings = RecordSettings(cassette: folder.appending(path: "c.json"), passthroughHosts: ["auth.example.test"])
        let mode = try RecordingMode(settings: settings, configuration: ServerConfiguration(port: 0, authorityHome: home),
                                     authority: CertificateAuthority(home: home), logger: Logger(label: "tapedeck.test"))
        let front = FrontDoor(mode: mode)
        guard case .relay = front.connectPlan(host: "AUTH.example.test", port: 443) else {
            Issue.record("a passthrough host is relayed, whatever its case")
            return
        }
        guard case .intercept = front.connectPlan(host: "api.example.test", port: 443) else {
            Issue.record("other hosts are intercepted")
            return
        }
    }
}

extension ModeDecisionTests {
    @Test func onlyARequestForARegexStubIsDecidedOffTheEventLoop() throws {
        let mode = try replayMode()
        let recorded = request("/plaintext?name=Shawn")
        let other = request("/orders/aaa")
        let quickly = { (request: IncomingRequest) in mode.decide(request, control: ControlHeaders(request.head.headerFields), quickly: true) }
        guard case .play = quickly(recorded), case .unmatched = quickly(other) else {
            Issue.record("without a regex stub, every request is decided on the event loop")
            return
        }
        let ids = mode.deck.player.stubs.add([
            Stub(request: RequestPattern(pathRegex: try StubRegex("^/orders/(a+)+$")), response: StubResponse(status: 200)),
        ])
        let logged = mode.deck.player.stubs.verify(RequestPattern()).count
        guard case .play = quickly(recorded) else {
            Issue.record("a recorded answer is still played on the event loop: it never reaches the stubs")
            return
        }
        #expect(quickly(other) == nil, "a request for the stubs waits for a thread that may wait")
        #expect(mode.deck.player.stubs.verify(RequestPattern()).count == logged + 1, "declined, it is not logged")
        guard case .play(let playback, _, _, _) = decide(mode, other) else {
            Issue.record("off the event loop, the regex stub answers")
            return
        }
        #expect(playback.stub?.id == ids[0])
        mode.deck.player.stubs.remove(id: ids[0])
        guard case .unmatched = quickly(other) else {
            Issue.record("without a regex stub, the request is decided on the event loop again")
            return
        }
    }
}
