import Foundation
import TapedeckTestSupport
import Testing
@testable import TapedeckCore

@Suite("Stubs: patterns, templates, scenarios, faults, run-time stubs and verification")
struct StubTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("cassettes/stubs-example.json")

    func request(_ method: String = "GET", _ url: String, headers: HeaderList = [:], body: String = "") -> CassetteRequest {
        CassetteRequest(method: method, url: url, headers: headers, body: Body(text: body))
    }

    func request(url: String, headers: HeaderList = [:]) -> CassetteRequest {
        request("GET", url, headers: headers)
    }

    func evaluate(_ pattern: RequestPattern, _ request: CassetteRequest) -> [String: String]? {
        if case .success(let captures) = pattern.evaluate(request) { return captures }
        return nil
    }

    func failure(_ pattern: RequestPattern, _ request: CassetteRequest) -> String? {
        if case .failure(let failure) = pattern.evaluate(request) { return failure.field }
        return nil
    }

    @Test("method: exact or *; host: name, or origin with scheme and port")
    func methodAndHost() {
        #expect(evaluate(RequestPattern(method: "get"), request("GET", "/x")) != nil)
        #expect(failure(RequestPattern(method: "POST"), request("GET", "/x")) == "method")
        #expect(evaluate(RequestPattern(method: "*"), request("DELETE", "/x")) != nil)
        #expect(evaluate(RequestPattern(host: "api.example.test"), request("GET", "https://api.example.test/x")) != nil)
        #expect(failure(RequestPattern(host: "other.test"), request("GET", "https://api.example.test/x")) == "host")
        #expect(evaluate(RequestPattern(host: "https://api.example.test:8443"), request("GET", "https://api.example.test:8443/x")) != nil)
        #expect(failure(RequestPattern(host: "http://api.example.test:8443"), request("GET", "https://api.example.test:8443/x")) == "host")
    }

    @Test("path templates: {name} one segment, {name*} the rest, * any one segment")
    func pathTemplates() {
        #expect(evaluate(RequestPattern(path: "/users/{id}"), request(url: "/users/42")) == ["id": "42"])
        #expect(failure(RequestPattern(path: "/users/{id}"), request(url: "/users/42/posts")) == "path")
        #expect(failure(RequestPattern(path: "/users/{id}"), request(url: "/users/")) == "path")
        #expect(evaluate(RequestPattern(path: "/files/{rest*}"), request(url: "/files/a/b/c.txt")) == ["rest": "a/b/c.txt"])
        #expect(evaluate(RequestPattern(path: "/teams/*/members"), request(url: "/teams/core/members")) == [:])
        #expect(evaluate(RequestPattern(path: "/exact"), request(url: "/exact?q=1")) == [:])
        #expect(evaluate(RequestPattern(path: "/caf\u{e9}"), request(url: "/caf%C3%A9")) == [:], "the path is decoded first")
    }

    @Test("pathRegex: the whole path, named groups captured; a bad expression is refused")
    func pathRegex() throws {
        let pattern = RequestPattern(pathRegex: try StubRegex("/orders/(?<order>[0-9]+)(/items/(?<item>\\w+))?"))
        #expect(evaluate(pattern, request(url: "/orders/17/items/abc")) == ["order": "17", "item": "abc"])
        #expect(failure(pattern, request(url: "/orders/x")) == "pathRegex")
        #expect(failure(pattern, request(url: "/v2/orders/17")) == "pathRegex", "anchored to the whole path")
        #expect(throws: StubRegexError.self) { try StubRegex("/orders/(") }
    }

    @Test("query, headers and form: present, exact or * or {capture}; unlisted names allowed")
    func valuePatterns() {
        let pattern = RequestPattern(query: ["page": "{page}", "sort": "name", "debug": "*"],
                                     headers: ["accept": "application/json"])
        let good = request(url: "/x?page=2&sort=name&debug=1&extra=yes", headers: ["Accept": "application/json"])
        #expect(evaluate(pattern, good) == ["page": "2"])
        #expect(failure(pattern, request(url: "/x?page=2&sort=age&debug=1", headers: ["Accept": "application/json"])) == "query")
        #expect(failure(pattern, request(url: "/x?page=2&sort=name", headers: ["Accept": "application/json"])) == "query")
        #expect(failure(pattern, request(url: "/x?page=2&sort=name&debug=", headers: ["Accept": "text/html"])) == "headers")
        let form = RequestPattern(form: ["user": "{user}", "remember": "yes"])
        #expect(evaluate(form, request("POST", "/login", body: "user=ada&remember=yes&x=1")) == ["user": "ada"])
        #expect(failure(form, request("POST", "/login", body: "user=ada")) == "form")
    }

    @Test("json: objects by subset, arrays and scalars equal, * any; bodyContains")
    func jsonAndBodyContains() {
        let pattern = RequestPattern(json: JSONValue(parsing: Data(#"{"cart": "*", "user": {"id": 7}, "tags": ["a", "b"]}"#.utf8)))
        #expect(evaluate(pattern, request("POST", "/c", body: #"{"cart": [1], "user": {"id": 7.0, "n": "x"}, "tags": ["a", "b"], "more": 1}"#)) != nil)
        #expect(failure(pattern, request("POST", "/c", body: #"{"cart": 1, "user": {"id": 8}, "tags": ["a", "b"]}"#)) == "json")
        #expect(failure(pattern, request("POST", "/c", body: #"{"cart": 1, "user": {"id": 7}, "tags": ["b", "a"]}"#)) == "json")
        #expect(failure(pattern, request("POST", "/c", body: "not json")) == "json")
        #expect(evaluate(RequestPattern(bodyContains: "needle"), request("POST", "/c", body: "hay needle hay")) != nil)
        #expect(failure(RequestPattern(bodyContains: "needle"), request("POST", "/c", body: "hay")) == "bodyContains")
    }

    @Test("the example stub file loads and serves a templated body through the player")
    func templatedBodyFromTheExampleFile() throws {
        let player = Player(cassette: try CassetteCodec().load(Self.example), name: "stubs-example")
        guard case .played(let playback) = player.play(request("GET", "/users/42?expand=all", headers: ["Accept": "application/json"])) else {
            Issue.record("not served")
            return
        }
        #expect(playback.stub?.name == "user by id")
        #expect(playback.interaction.response.body.text == #"{"id": 42, "name": "user 42", "expand": "all"}"#)
    }

    @Test("templates: json paths into the body, path captures, a seeded uuid, a fixed now, header/query/form/method/url")
    func templates() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let stub = Stub(request: RequestPattern(method: "POST", path: "/orders/{order}"),
                        response: StubResponse(status: 201, headers: ["X-Trace": "{{header.X-Trace}}-{{method}}"],
                                               body: Body(Data(#"{"order":"{{path.order}}","note":"{{json.$.note}}","n":"{{json.items[1].n}}","q":"{{query.q}}","id":"{{uuid}}","at":"{{now}}","url":"{{url}}"}"#.utf8), style: .json),
                                               templated: true))
        func serve(_ seed: UInt64) -> StubResponse? {
            StubSet([stub], seed: seed, now: { now }).answer(
                request("POST", "/orders/9?q=z", headers: ["X-Trace": "t1"], body: #"{"note":"hi","items":[{"n":1},{"n":2}]}"#),
                session: "")?.response
        }
        let response = serve(7)
        #expect(response?.headers["X-Trace"] == "t1-POST")
        let body = response.flatMap { JSONValue(parsing: $0.body.data) }
        guard case .object(let members)? = body else { Issue.record("not JSON"); return }
        #expect(members["order"] == .string("9"))
        #expect(members["note"] == .string("hi"))
        #expect(members["n"] == .string("2"))
        #expect(members["q"] == .string("z"))
        #expect(members["at"] == .string("2027-01-15T08:00:00.000Z"))
        #expect(members["url"] == .string("/orders/9?q=z"))
        guard case .string(let id)? = members["id"] else { Issue.record("no uuid"); return }
        #expect(id.count == 36 && id.split(separator: "-").count == 5)
        #expect(serve(7).flatMap { JSONValue(parsing: $0.body.data) } == body, "same seed, same stub, same play: same uuid")
        #expect(serve(8).flatMap { JSONValue(parsing: $0.body.data) } != body, "another seed gives another uuid")
    }

    @Test("scenarios: 503 then 201, each session walking its own; reset puts them back")
    func scenarios() throws {
        let player = Player(cassette: try CassetteCodec().load(Self.example), name: "stubs-example")
        let checkout = request("POST", "/checkout", headers: ["Content-Type": "application/json"], body: #"{"cart": [1, 2]}"#)
        func status(_ session: String) -> Int? {
            if case .played(let playback) = player.play(checkout, session: session) { return playback.interaction.response.status }
            return nil
        }
        #expect(status("a") == 503)
        #expect(status("b") == 503, "session b starts in Started")
        #expect(status("a") == 201)
        #expect(status("a") == 201)
        #expect(status("b") == 201)
        player.reset()
        #expect(status("a") == 503)
    }

    @Test("recordings win over stubs; stubs by priority, then order; closures compute the answer")
    func orderAndClosures() {
        let recorded = Cassette(interactions: [Interaction(request: CassetteRequest(method: "GET", url: "/thing"),
                                                           response: CassetteResponse(status: 200, body: Body(text: "recorded")))])
        let stubs = [
            Stub(name: "late", request: RequestPattern(path: "/{any}"), response: StubResponse(status: 200, body: Body(text: "late"))),
            Stub(name: "early", priority: 1, request: RequestPattern(path: "/other")) { request in
                StubResponse(status: 202, body: Body(text: "computed for \(request.method)"))
            },
        ]
        let player = Player(cassette: recorded, name: "c", stubs: stubs)
        func text(_ path: String) -> String? {
            if case .played(let playback) = player.play(request(url: path)) { return playback.interaction.response.body.text }
            return nil
        }
        #expect(text("/thing") == "recorded")
        #expect(text("/other") == "computed for GET")
        #expect(text("/else") == "late")
    }

    @Test("a computed answer whose status cannot answer a request is refused as it answers: 500 naming the stub and why",
          arguments: [(103, "interim answer"), (101, "interim answer"), (42, "not a status code"), (1000, "not a status code")])
    func computedStatusesAreChecked(status: Int, why: String) {
        let stubs = [
            Stub(name: "odd", request: RequestPattern(path: "/odd")) { _ in StubResponse(status: status) },
            Stub(name: "chat", request: RequestPattern(path: "/chat")) { _ in
                StubResponse(status: 101, websocket: [WebSocketMessage(from: .server, atMs: 0, content: .text("hi"))])
            },
        ]
        let player = Player(cassette: Cassette(), name: "c", stubs: stubs)
        guard case .played(let refused) = player.play(request(url: "/odd")),
              case .played(let chat) = player.play(request(url: "/chat")) else { Issue.record("not served"); return }
        #expect(refused.interaction.response.status == 500)
        #expect(refused.interaction.response.headers["Tapedeck-Error"] == "stub-status-refused")
        let text = refused.interaction.response.body.text ?? ""
        #expect(text.contains("stub \"odd\"") && text.contains(why), "\(text)")
        #expect(chat.interaction.response.status == 101, "101 with its conversation answers")
    }

    @Test("faults come back as values for the doors to perform")
    func faults() throws {
        let player = Player(cassette: try CassetteCodec().load(Self.example), name: "stubs-example")
        guard case .played(let playback) = player.play(request(url: "/flaky")) else { Issue.record("not served"); return }
        #expect(playback.fault == .reset)
    }

    @Test("run-time stubs: added, scoped to a session, listed, removed; file stubs stay")
    func runTimeStubs() throws {
        let player = Player(cassette: try CassetteCodec().load(Self.example), name: "stubs-example")
        let ids = player.stubs.add([Stub(request: RequestPattern(path: "/only-for-a"), response: StubResponse(status: 204))], session: "a")
        #expect(ids.count == 1)
        if case .played = player.play(request(url: "/only-for-a"), session: "a") {} else { Issue.record("session a sees its stub") }
        if case .unmatched = player.play(request(url: "/only-for-a"), session: "b") {} else { Issue.record("session b does not") }
        #expect(player.stubs.list(session: "a").count == 6)
        #expect(player.stubs.list(session: "b").count == 5)
        #expect(player.stubs.remove(id: ids[0]))
        #expect(!player.stubs.remove(id: ids[0]))
        player.stubs.add([Stub(request: RequestPattern(path: "/x"), response: StubResponse(status: 204))])
        player.stubs.removeAll()
        #expect(player.stubs.list().count == 5)
    }

    @Test("verify counts what the client sent, by pattern and session")
    func verify() {
        let player = Player(cassette: Cassette(), name: "none", stubs: [Stub(request: RequestPattern(), response: StubResponse(status: 200))])
        _ = player.play(request("POST", "/orders", body: #"{"sku": "A"}"#), session: "s1")
        _ = player.play(request("POST", "/orders", body: #"{"sku": "B"}"#), session: "s2")
        _ = player.play(request("GET", "/orders"), session: "s1")
        let posts = RequestPattern(method: "POST", path: "/orders")
        #expect(player.stubs.verify(posts).count == 2)
        #expect(player.stubs.verify(posts, session: "s1").map { $0.body.text } == [#"{"sku": "A"}"#])
        #expect(player.stubs.verify(RequestPattern(json: .object(["sku": .string("B")]))).count == 1)
        player.reset()
        #expect(player.stubs.verify(posts).isEmpty)
    }

    @Test("a miss lists the nearest stubs with the pattern field each failed")
    func diagnosisListsStubs() throws {
        let player = Player(cassette: try CassetteCodec().load(Self.example), name: "stubs-example")
        guard case .unmatched(let diagnosis) = player.play(request("GET", "/users/42", headers: ["Accept": "text/html"])) else {
            Issue.record("served")
            return
        }
        #expect(diagnosis.nearestStubs?.first?.name == "user by id")
        #expect(diagnosis.nearestStubs?.first?.failedField == "query")
        #expect(diagnosis.description.contains("nearest stubs:"))
    }

    @Test("a malformed stub is refused with the file and the JSON path of the field")
    func malformedStubs() {
        func error(_ json: String) -> String {
            do {
                _ = try CassetteCodec().decode(Data(json.utf8), file: URL(fileURLWithPath: "/tmp/bad.json"))
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(error(#"{"version": 1, "stubs": [{"request": {"path": "/a"}, "response": {"status": 200}}, {"request": {"pathRegex": "("}, "response": {"status": 200}}]}"#)
            .contains("stubs[1].request.pathRegex"))
        #expect(error(#"{"version": 1, "stubs": [{"request": {"bodyContain": "x"}, "response": {"status": 200}}]}"#)
            .contains("bodyContain"))
        #expect(error(#"{"version": 1, "stubs": [{"response": {"headers": {}}}]}"#).contains("stubs[0].response"))
        #expect(error(#"{"version": 1, "stubs": [{"response": {"fault": "explode"}}]}"#).contains("stubs[0].response.fault"))
    }

    @Test("a thousand stubs: the one that answers is found through the index")
    func manyStubs() {
        let stubs = (0..<1000).map { index in
            Stub(request: RequestPattern(method: "GET", path: "/resource\(index)/{id}"), response: StubResponse(status: 200, body: Body(text: "\(index)")))
        }
        let player = Player(cassette: Cassette(), name: "many", stubs: stubs)
        guard case .played(let playback) = player.play(request(url: "/resource999/7")) else { Issue.record("not served"); return }
        #expect(playback.interaction.response.body.text == "999")
    }

    @Test("recording into a cassette with stubs keeps the stubs as they were written")
    func recordingKeepsStubs() throws {
        let folder = TestFiles.folder.appendingPathComponent("tapedeck-stubs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("mixed.json")
        try FileManager.default.copyItem(at: Self.example, to: file)
        let recorder = try Recorder(file: file, mode: .newEpisodes)
        try recorder.record(Interaction(request: CassetteRequest(method: "GET", url: "https://api.example.test/new"),
                                        response: CassetteResponse(status: 200, body: Body(text: "new"))))
        try recorder.flush()
        let saved = try CassetteCodec().load(file)
        #expect(saved.interactions.count == 1)
        #expect(saved.stubs.map(\.name) == ["user by id", "checkout fails once, then succeeds", "checkout after the retry",
                                            "a flaky dependency", "echo the order id"])
    }
}
