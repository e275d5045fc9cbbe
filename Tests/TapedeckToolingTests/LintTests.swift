import Foundation
import Testing
import TapedeckCore
@testable import TapedeckTooling

@Suite("lint")
struct LintTests {
    typealias Secret = ToolingTestSupport.FakeSecret

    @Test("the example cassette and the imported fixtures are clean")
    func cleanCassettesAreClean() throws {
        #expect(CassetteLinter().lint(file: ToolingTestSupport.exampleCassette) == [])
        let har = try HARImporter().importFile(ToolingTestSupport.fixture("mitmproxy.har")).cassette
        #expect(CassetteLinter().lint(har, file: "mitmproxy") == [])
    }

    @Test("each kind of secret shape is found where it sits", arguments: [
        ("Stripe secret key", Secret.stripe),
        ("AWS access key ID", Secret.aws),
        ("GitHub token", Secret.github),
        ("private key block", Secret.privateKey),
        ("Slack token", Secret.slack),
        ("Google API key", String(Secret.google)),
        ("JSON Web Token", Secret.jwt),
    ])
    func secretShapesInBodiesAreFound(name: String, secret: String) {
        let body = "{\"config\":\"\(secret.replacingOccurrences(of: "\n", with: "\\n"))\"}"
        let cassette = Cassette(interactions: [Interactions.get("http://h/ok", answer: "fine"),
                                               Interactions.get("http://h/config", answer: body)])
        let findings = CassetteLinter().lint(cassette, file: "c.json")
        #expect(findings.count == 1)
        #expect(findings.first?.kind == .secret)
        #expect(findings.first?.place == "interactions[1].response.body")
        #expect(findings.first?.message.contains(name) == true)
        #expect(findings.first?.message.contains(secret) == false, "a report never repeats the whole secret")
    }

    @Test("a side file past 32 MiB is checked piece by piece: a value the rules name, and secret shapes cut by a piece's end")
    func largeSideFilesAreChecked() throws {
        let piece = 1 << 20
        // A GitHub token across the scanner's first piece end; an "é" across the second's, then an AWS key.
        var body = #"{"note": ""# + String(repeating: "n", count: piece - 11 - #"{"note": ""#.count) + " " + Secret.github + " "
        body += String(repeating: "n", count: 2 * piece - 1 - body.utf8.count) + "é" + String(repeating: "n", count: 100) + " \(Secret.aws) "
        body += #"", "padding": "\#(String(repeating: "p", count: Body.wholeReadLimit))", "password": "hunter2-large"}"#
        let file = try ToolingTestSupport.cassetteWithSideFiles([
            Interactions.get("http://h/export", answer: body, responseHeaders: ["Content-Type": "application/json"]),
        ])
        let findings = CassetteLinter().lint(file: file)
        #expect(findings.map(\.place) == ["interactions[0]", "interactions[0].response.body", "interactions[0].response.body"], "\(findings)")
        #expect(findings.first?.message.hasPrefix("response body $..password: not redacted") == true)
        #expect(findings.dropFirst().map { $0.message.contains("GitHub token") || $0.message.contains("AWS access key ID") } == [true, true])
        #expect(findings.allSatisfy { !$0.message.contains(Secret.github) && !$0.message.contains(Secret.aws) })
    }

    @Test("bearer tokens and basic credentials in headers outside the redaction rules are found")
    func credentialsInOtherHeadersAreFound() {
        let cassette = Cassette(interactions: [
            Interactions.get("http://h/a", answer: "x", headers: ["X-Upstream-Auth": Secret.bearer]),
            Interactions.get("http://h/b", answer: "x", headers: ["X-Forwarded-Auth": Secret.basic]),
            Interactions.get("http://h/c", answer: "x", headers: ["X-Note": "Basic auth is not used here"]),
            Interactions.get("https://bob:hunter22@h/d", answer: "x"),
        ])
        let findings = CassetteLinter().lint(cassette, file: "c.json")
        #expect(findings.map(\.place) == ["interactions[0].request.headers.X-Upstream-Auth",
                                          "interactions[1].request.headers.X-Forwarded-Auth",
                                          "interactions[3].request.url"])
        #expect(findings[0].message.contains("bearer token"))
        #expect(findings[1].message.contains("basic credentials"))
        #expect(findings[2].message.contains("credentials in a URL"))
    }

    @Test("values the redaction rules cover but that are in clear are reported once each")
    func unredactedRuleValuesAreReported() {
        let cassette = Cassette(interactions: [
            Interactions.get("http://h/a?token=abc123&page=2", answer: "x", headers: ["Authorization": Secret.bearer]),
            Interactions.postJSON("http://h/login", body: "{\"user\":\"a\",\"password\":\"pw\"}"),
        ])
        let findings = CassetteLinter().lint(cassette, file: "c.json")
        let messages = findings.map(\.message)
        #expect(findings.allSatisfy { $0.kind == .secret })
        #expect(findings.count == 3)
        #expect(messages.contains { $0.hasPrefix("request header Authorization: not redacted") })
        #expect(messages.contains { $0.hasPrefix("query parameters: not redacted") })
        #expect(messages.contains { $0.hasPrefix("request body $..password: not redacted") })
    }

    @Test("a redacted cassette is clean: the placeholder is not a secret")
    func redactedValuesAreClean() {
        let cassette = Cassette(interactions: [
            Interactions.get("http://h/a?token=\(Redactor.placeholder)", answer: "x", headers: ["Authorization": Redactor.placeholder]),
        ])
        #expect(CassetteLinter().lint(cassette, file: "c.json") == [])
    }

    @Test("an interaction repeating an earlier one, same request and same answer, is a duplicate")
    func identicalRepeatsAreDuplicates() {
        let cassette = Cassette(interactions: [
            Interactions.get("http://h/users", answer: "[1]"),
            Interactions.get("http://h/other", answer: "x"),
            Interactions.get("http://h/users", answer: "[1]"),
        ])
        let findings = CassetteLinter().lint(cassette, file: "c.json")
        #expect(findings.count == 1)
        #expect(findings.first?.kind == .duplicate)
        #expect(findings.first?.place == "interactions[2]")
        #expect(findings.first?.message.hasPrefix("duplicate of interactions[0]") == true)
    }

    @Test("polling the same URL with different answers is not a duplicate: every answer is played in turn")
    func repeatsWithDifferentAnswersAreKept() {
        let cassette = Cassette(interactions: [
            Interactions.get("http://h/job", answer: "{\"state\":\"running\"}"),
            Interactions.get("http://h/job", answer: "{\"state\":\"done\"}"),
        ])
        #expect(CassetteLinter().lint(cassette, file: "c.json") == [])
        // The core player agrees: both are served, in order.
        let player = Player(cassette: cassette, name: "c")
        let bodies = (0..<2).compactMap { _ -> String? in
            guard case .played(let playback) = player.play(CassetteRequest(method: "GET", url: "/job")) else { return nil }
            return playback.interaction.response.body.text
        }
        #expect(bodies == ["{\"state\":\"running\"}", "{\"state\":\"done\"}"])
    }

    @Test("duplicates are judged under the replay match options")
    func duplicatesFollowMatchOptions() {
        let cassette = Cassette(interactions: [
            Interactions.get("http://h/search?q=a&_=1", answer: "r"),
            Interactions.get("http://h/search?q=a&_=2", answer: "r"),
        ])
        #expect(CassetteLinter().lint(cassette, file: "c.json") == [])
        let relaxed = CassetteLinter(matchOptions: MatchOptions(ignoredQueryParameters: ["_"]))
        #expect(relaxed.lint(cassette, file: "c.json").map(\.kind) == [.duplicate])
    }

    @Test("a response field named like a pseudo-header is a warning")
    func pseudoHeaderNamesAreWarned() {
        var interaction = Interactions.get("http://h/a", answer: "x")
        interaction.response.headers.append(name: ":status", value: "200")
        interaction.response.trailers = [":path": "/a", "grpc-status": "0"]
        let findings = CassetteLinter().lint(Cassette(interactions: [interaction]), file: "c.json")
        #expect(findings.map(\.place) == ["interactions[0].response.headers.:status", "interactions[0].response.trailers.:path"])
        #expect(findings.allSatisfy { $0.kind == .content && $0.severity == .warning })
    }

    @Test("a gRPC answer's status a client cannot read is a warning: none, two, or not a number")
    func unreadableGRPCStatusesAreWarned() {
        func call(trailers: HeaderList?, head: HeaderList = ["content-type": "application/grpc"]) -> Interaction {
            var interaction = Interactions.get("http://h/demo.Greeter/SayHello", answer: "")
            interaction.request.method = "POST"
            interaction.request.headers = ["content-type": "application/grpc"]
            interaction.response.headers = head
            interaction.response.trailers = trailers
            return interaction
        }
        let cassette = Cassette(interactions: [
            call(trailers: ["grpc-status": "0"]),
            call(trailers: nil, head: ["content-type": "application/grpc+proto", "grpc-status": "5"]),
            call(trailers: ["grpc-message": "no status"]),
            call(trailers: HeaderList([HeaderField(name: "grpc-status", value: "0"), HeaderField(name: "grpc-status", value: "13")])),
            call(trailers: ["grpc-status": "OK"]),
            call(trailers: ["grpc-status": "0"], head: ["content-type": "application/grpc", "grpc-status": "0"]),
        ])
        let findings = CassetteLinter().lint(cassette, file: "c.json").filter { $0.kind == .content }
        #expect(findings.map(\.place) == [2, 3, 4, 5].map { "interactions[\($0)].response.trailers" }, "\(findings)")
        #expect(findings.allSatisfy { $0.severity == .warning })
        #expect(findings.first?.message.contains("no grpc-status") == true)
        #expect(findings.dropFirst().first?.message.contains("given 2 times (0, 13)") == true)
        #expect(findings.dropFirst(2).first?.message.contains("\"OK\" is not a status code") == true)
    }

    @Test("missing timing is a warning unless a delay is set by hand")
    func missingTimingIsWarned() {
        var delayed = Interactions.get("http://h/b", answer: "x", timed: false)
        delayed.delayMs = 30
        let cassette = Cassette(interactions: [Interactions.get("http://h/a", answer: "x", timed: false), delayed])
        let findings = CassetteLinter().lint(cassette, file: "c.json")
        #expect(findings.map(\.kind) == [.timing])
        #expect(findings.first?.place == "interactions[0]")
    }

    @Test("schema errors name the file and the place, as the codec does", arguments: [
        ("{\n  \"version\": 1,\n  \"interactions\": [\n    {,}\n  ]\n}\n", "line 4, column"),
        ("{\"version\": 1, \"interactions\": [{\"request\": {\"method\": \"GET\", \"url\": \"/\"}, \"response\": {\"status\": 999}}]}",
         "interactions[0].response.status"),
        ("{\"version\": 7, \"interactions\": []}", "version"),
    ])
    func schemaErrorsNamePlace(text: String, place: String) throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let file = folder.appendingPathComponent("bad.json")
        try Data(text.utf8).write(to: file)
        let findings = CassetteLinter().lint(file: file)
        #expect(findings.count == 1)
        #expect(findings.first?.severity == .error)
        #expect(findings.first?.file == file.path)
        #expect(findings.first?.place.hasPrefix(place) == true, "\(findings)")
    }

    @Test("every interaction that does not load is reported, each at its place, not only the first")
    func everyBrokenInteractionIsReported() throws {
        let good = #"{"request": {"method": "GET", "url": "/ok"}, "response": {"status": 200}}"#
        let interactions = [
            good,
            #"{"request": {"method": "GET", "url": "/a"}, "response": {"status": 999}}"#,
            good,
            #"{"request": {"method": "GET"}, "response": {"status": 200}}"#,
            #"{"request": {"method": "GET", "url": "/c"}, "response": {"status": 200}, "timing": {"firstByteMs": -1, "totalMs": 2}}"#,
        ]
        let folder = try ToolingTestSupport.temporaryFolder()
        let file = folder.appendingPathComponent("bad.json")
        try Data(#"{"version": 1, "interactions": [\#(interactions.joined(separator: ",\n"))]}"#.utf8).write(to: file)
        let findings = CassetteLinter().lint(file: file)
        #expect(findings.map(\.place) == ["interactions[1].response.status", "interactions[3].request.url", "interactions[4].timing.firstByteMs"],
                "\(findings)")
        #expect(findings.allSatisfy { $0.severity == .error && $0.kind == .schema })
        // Where the first error is not an interaction's, it is the one reported.
        try Data(#"{"version": 1, "meta": 3, "interactions": [\#(interactions[1])]}"#.utf8).write(to: file)
        #expect(CassetteLinter().lint(file: file).map(\.place) == ["meta"])
    }

    @Test("tapedeck lint exits 0 when clean, 1 on errors, and 1 on warnings only with --strict")
    func commandExitStatus() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let clean = ToolingTestSupport.exampleCassette.path
        let warned = try Interactions.write([Interactions.get("http://h/a", answer: "x", timed: false)], to: folder).path
        let broken = folder.appendingPathComponent("broken.json")
        try Data("{\"version\": 1}".utf8).write(to: broken)

        #expect(try ToolingTestSupport.tapedeck("lint", clean).status == 0)
        let warnedRun = try ToolingTestSupport.tapedeck("lint", warned)
        #expect(warnedRun.status == 0)
        #expect(warnedRun.stdout.contains("warning: interactions[0]: no timing"))
        #expect(try ToolingTestSupport.tapedeck("lint", "--strict", warned).status == 1)
        let brokenRun = try ToolingTestSupport.tapedeck("lint", clean, broken.path)
        #expect(brokenRun.status == 1)
        #expect(brokenRun.stdout.contains("\(broken.path): error: interactions: required field is missing"))
        #expect(try ToolingTestSupport.tapedeck("lint", "--ignore-json-path", "nope", clean).status == 2)

        let jsonRun = try ToolingTestSupport.tapedeck("lint", "--json", warned)
        let findings = try JSONDecoder().decode([LintFinding].self, from: Data(jsonRun.stdout.utf8))
        #expect(findings == [LintFinding(severity: .warning, kind: .timing, file: warned, place: "interactions[0]",
                                         message: "no timing recorded; `--latency recorded` serves it with no delay")])
    }
}

@Suite("lint: stubs and expiry")
struct LintStubAndExpiryTests {
    func lint(_ json: String, expireAfterDays: Double? = nil) throws -> [LintFinding] {
        let cassette = try CassetteCodec().decode(Data(json.utf8))
        return CassetteLinter(expireAfterDays: expireAfterDays, now: { Date(timeIntervalSince1970: 1_800_000_000) })
            .lint(cassette, file: "x.json")
    }

    @Test("a template naming a capture the pattern does not define is an error")
    func undefinedCapture() throws {
        let findings = try lint(#"""
            {"version": 1, "stubs": [{"request": {"path": "/users/{id}", "query": {"page": "{page}"}},
              "response": {"status": 200, "templated": true, "body": {"text": "{{path.id}} {{path.page}} {{path.user}}"}}}]}
            """#)
        #expect(findings.map(\.place) == ["stubs[0].response"])
        #expect(findings.first?.severity == .error)
        #expect(findings.first?.message.contains("{{path.user}}") == true)
    }

    @Test("a template reading a value the request may lack, without a default, is a warning; a filter other than default is an error")
    func possiblyAbsentValues() throws {
        let findings = try lint(#"""
            {"version": 1, "stubs": [
              {"request": {"path": "/a", "query": {"page": "*"}, "headers": {"X-Trace": "*"}, "form": {"user": "{user}"}, "json": {"order": {"id": "*"}}},
               "response": {"status": 200, "templated": true, "headers": {"X-Echo": ["{{header.x-trace}}"]},
                            "body": {"text": "{{query.page}} {{form.user}} {{json.order.id}} {{query.size | default: \"10\"}} {{method}} {{uuid}}"}}},
              {"request": {"path": "/b"},
               "response": {"status": 200, "templated": true, "headers": {"X-Echo": ["{{header.X-Trace}}"]},
                            "body": {"json": {"expand": "{{query.expand}}", "id": "{{json.$.order.id}}", "user": "{{form.user}}"}}}},
              {"request": {"path": "/c"},
               "response": {"status": 200, "templated": true, "body": {"text": "{{query.x | upper}}"}}},
              {"request": {"path": "/d"},
               "response": {"status": 200, "body": {"text": "{{query.x}}: not templated, sent as written"}}}]}
            """#)
        #expect(!findings.contains { $0.place.hasPrefix("stubs[0]") }, "every value read is required by the pattern or has a default: \(findings)")
        let second = findings.filter { $0.place.hasPrefix("stubs[1]") }
        #expect(second.allSatisfy { $0.severity == .warning && $0.kind == .stub })
        for expression in ["{{header.X-Trace}}", "{{query.expand}}", "{{json.$.order.id}}", "{{form.user}}"] {
            #expect(second.contains { $0.message.contains(expression) && $0.message.contains("template-failed") && $0.message.contains("default") },
                    "\(expression): \(second)")
        }
        let third = findings.filter { $0.place.hasPrefix("stubs[2]") }
        #expect(third.map(\.severity) == [.error], "\(third)")
        #expect(third.first?.message.contains("upper") == true)
        #expect(!findings.contains { $0.place.hasPrefix("stubs[3]") })
    }

    @Test("tapedeck lint names a value the request may lack, and the default that would stand in")
    func possiblyAbsentValueThroughTheCommand() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let file = folder.appendingPathComponent("stubs.json")
        try Data(#"{"version": 1, "stubs": [{"request": {"path": "/users/{id}"}, "response": {"status": 200, "templated": true, "body": {"text": "{{path.id}} {{query.expand}}"}}}]}"#.utf8)
            .write(to: file)
        let outcome = try ToolingTestSupport.tapedeck("lint", file.path)
        #expect(outcome.stdout.contains("warning: stubs[0].response: {{query.expand}}"), "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains(#"{{query.expand | default: "…"}}"#), "\(outcome.stdout)")
        #expect(try ToolingTestSupport.tapedeck("lint", "--strict", file.path).status == 1)
    }

    @Test("lint --expire-after lists the interactions older than that")
    func expired() throws {
        let json = #"""
            {"version": 1, "interactions": [
              {"recordedAt": "2026-01-01T00:00:00.000Z", "request": {"method": "GET", "url": "/old"}, "response": {"status": 200}, "timing": {"firstByteMs": 1, "totalMs": 1}},
              {"recordedAt": "2027-01-10T00:00:00.000Z", "request": {"method": "GET", "url": "/new"}, "response": {"status": 200}, "timing": {"firstByteMs": 1, "totalMs": 1}}]}
            """#
        #expect(try lint(json, expireAfterDays: 30).filter { $0.kind == .expired }.map(\.place) == ["interactions[0]"])
        #expect(try lint(json).filter { $0.kind == .expired }.isEmpty, "no age, no expiry")
    }
}
