import AsyncHTTPClient
import Foundation
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
@_spi(Internals) import TapedeckCore
import TapedeckServer
import Testing

/// `tapedeck record` end to end: a real upstream, real clients, then replay with the upstream stopped.
@Suite struct RecordingProxyTests {
    /// What a client saw during recording, to compare with replay.
    struct Seen: Equatable {
        var status: Int
        var body: Data
    }

    /// Sends the example's request kinds through `base` and returns what came back.
    private func exerciseExampleKinds(base: String, uploadDirectory: URL, query: String) async throws -> [String: Seen] {
        var seen: [String: Seen] = [:]
        let (plain, plainResponse) = try await Clients.urlSession().data(from: URL(string: base + "/plaintext?\(query)")!)
        seen["plaintext"] = Seen(status: (plainResponse as! HTTPURLResponse).statusCode, body: plain)
        try await Clients.withHTTPClient { (client: HTTPClient) async throws in
            let form = try await Clients.send(client, .POST, base + "/postName", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                              body: Data("name=Shawn&sex=1".utf8))
            seen["form"] = Seen(status: form.status, body: form.body)
            let download = try await Clients.send(client, .GET, base + "/download?size=4000000")
            seen["download"] = Seen(status: download.status, body: download.body)
            let gzip = try await Clients.send(client, .GET, base + "/gzip-json", headers: [("Accept-Encoding", "gzip")])
            seen["gzip"] = Seen(status: gzip.status, body: gzip.body)
            let redirect = try await Clients.send(client, .GET, base + "/redirect")
            seen["redirect"] = Seen(status: redirect.status, body: redirect.body)
        }
        let json = try await Curl.run(["-H", "Content-Type: application/json", "-H", "Authorization: Bearer live-token",
                                 "--data", #"{"user":{"name":"Shawn"},"count":3}"#, base + "/postBodyData"])
        seen["json"] = Seen(status: 200, body: json.output)
        let notes = uploadDirectory.appending(path: "notes.txt"), image = uploadDirectory.appending(path: "pixel.bin")
        try Data("some notes\n".utf8).write(to: notes)
        try Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0x10]).write(to: image)
        let upload = try await Curl.run(["-F", "description=Two files", "-F", "files=@\(notes.path);type=text/plain",
                                   "-F", "files=@\(image.path);type=application/octet-stream", base + "/upload"])
        seen["upload"] = Seen(status: 200, body: upload.output)
        let events = try await Curl.run(["-N", base + "/events"])
        seen["events"] = Seen(status: 200, body: events.output)
        return seen
    }

    @Test(.requires(.curl)) func reverseProxyRecordsEveryKindAndReplayServesThemByteForByte() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appending(path: "recorded.json")
        let upstream = try await TestUpstream.start()
        let recorded = try await RecordHarness.run(settings: RecordSettings(cassette: cassette, target: upstream.target)) { (harness: RecordHarness) async throws in
            try await exerciseExampleKinds(base: harness.base, uploadDirectory: directory, query: "name=Shawn&lang=en")
        }
        try await upstream.stop()
        #expect(recorded["plaintext"]?.body == Data("Hello Shawn!".utf8))
        #expect(recorded["download"]?.body == TestUpstream.downloadBody(size: 4_000_000))
        #expect(recorded["redirect"]?.status == 302)
        let uploadAnswer = String(decoding: recorded["upload"]?.body ?? Data(), as: UTF8.self)
        #expect(uploadAnswer.contains(#""files":2"#))

        let stored = try CassetteCodec().load(cassette)
        #expect(stored.interactions.count == 8)
        let byPath = Dictionary(stored.interactions.map { ($0.request.target.path, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byPath["/plaintext"]?.request.url == upstream.base + "/plaintext?name=Shawn&lang=en")
        #expect(byPath["/postBodyData"]?.request.headers["Authorization"] == Redactor.placeholder)
        #expect(byPath["/gzip-json"]?.response.body.data == Data(TestUpstream.gzipJSON.utf8))
        #expect(byPath["/gzip-json"]?.response.headers["Content-Encoding"] == "gzip")
        #expect(byPath["/redirect"]?.response.headers["Location"] == "/plaintext?name=Redirected")
        let events = try #require(byPath["/events"])
        #expect(events.chunks?.map { String(decoding: $0.data, as: UTF8.self) }.joined() == "data: one\n\ndata: two\n\ndata: three\n\n")
        let offsets = events.chunks?.map(\.atMs) ?? []
        #expect(offsets.count == 3)
        if offsets.count == 3 {
            // Sent 200 ms apart; a loaded machine may read one late, which shortens the gap after
            // it, so only the order and that the last came well after the head are certain.
            #expect(offsets == offsets.sorted() && offsets[2] >= 100, "\(offsets)")
        }
        #expect((events.timing?.totalMs ?? 0) >= 100)
        #expect(stored.interactions.allSatisfy { ($0.timing?.totalMs ?? -1) >= ($0.timing?.firstByteMs ?? 0) })

        var options = PlaybackOptions()
        options.latency = LatencyModel(.recorded)
        try await ReplayHarness.run(files: [cassette], options: options) { (harness: ReplayHarness) async throws in
            let replayed = try await exerciseExampleKinds(base: harness.base, uploadDirectory: directory, query: "lang=en&name=Shawn")
            for (name, seen) in recorded {
                #expect(replayed[name] == seen, "\(name) differs on replay")
            }
            let unmatched = harness.responder.journal.document().entries.filter { $0.outcome != .played }
            #expect(unmatched.isEmpty, "\(unmatched)")
            let streamDelay = try #require(harness.scheduledDelays().first { $0.chunks.count == 3 })
            let firstByte = events.timing?.firstByteMs ?? 0
            #expect(streamDelay.chunks == offsets.map { Duration.microseconds(Int64(((firstByte + $0) * 1000).rounded())) })
        }
    }

    /// curl sends `Expect: 100-continue` with a large upload and waits for `100 Continue` (one
    /// second, else). The recording proxy answers it itself, as forward proxy over http and inside
    /// an intercepted https tunnel, and records the upload.
    @Test(.requires(.curl)) func expectContinueIsAnsweredForwardOverHTTPAndHTTPS() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upload = directory.appending(path: "upload.bin")
        try Data(repeating: 0x41, count: 2 << 20).write(to: upload)
        let plain = try await TestUpstream.start()
        let (secure, upstreamCA) = try await TestUpstream.startSecure(writingAuthorityTo: directory)
        let cassette = directory.appending(path: "continue.json")
        let settings = RecordSettings(cassette: cassette, trust: UpstreamTrust(extraRoots: [upstreamCA]))
        try await RecordHarness.run(settings: settings) { (harness: RecordHarness) async throws in
            let clientCA = try harness.authorityFile()
            for url in ["http://127.0.0.1:\(plain.port)/upload", "https://localhost:\(secure.port)/upload"] {
                // HTTP/1.1's interim answer; over HTTP/2 (what curl picks through the tunnel otherwise) it is `:status: 100`.
                let result = try await Curl.run(["--verbose", "--http1.1", "--proxy", harness.base, "--cacert", clientCA.path,
                                                 "-H", "Expect: 100-continue", "-H", "Content-Type: application/octet-stream",
                                                 "--data-binary", "@" + upload.path, url])
                #expect(result.status == 0, "\(url): \(result.error)")
                #expect(result.error.contains("HTTP/1.1 100 Continue"), "\(url): \(result.error)")
                #expect(result.text.contains(#""bytes":\#(2 << 20)"#), "\(url): \(result.text)")
            }
        }
        try await plain.stop()
        try await secure.stop()
        let stored = try CassetteCodec().load(cassette)
        #expect(stored.interactions.map(\.request.body.data.count) == [2 << 20, 2 << 20])
    }

    @Test(.requires(.curl)) func forwardProxyRecordsHTTPSThroughTheLocalCAAndReplaysIt() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (upstream, upstreamCA) = try await TestUpstream.startSecure(writingAuthorityTo: directory)
        let cassette = directory.appending(path: "https.json")
        let url = "https://localhost:\(upstream.port)/plaintext?name=Tls"
        let settings = RecordSettings(cassette: cassette, trust: UpstreamTrust(extraRoots: [upstreamCA]))
        try await RecordHarness.run(settings: settings) { (harness: RecordHarness) async throws in
            let clientCA = try harness.authorityFile()
            let result = try await Curl.run(["--proxy", harness.base, "--cacert", clientCA.path, url])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.text == "Hello Tls!")
            let configuration = try Clients.throughProxy(port: harness.server.port,
                                                         trusting: harness.responder.authority.certificatePEM())
            try await Clients.withHTTPClient(configuration) { (client: HTTPClient) async throws in
                let gzip = try await Clients.send(client, .GET, "https://localhost:\(upstream.port)/gzip-json")
                #expect(try ContentCoding.gzip.decode(gzip.body) == Data(TestUpstream.gzipJSON.utf8))
                let plain = try await Clients.send(client, .GET, "http://127.0.0.1:\(upstream.port + 0)/plaintext?name=Plain")
                #expect(plain.status == 502 || plain.status == 200)
            }
        }
        try await upstream.stop()
        let stored = try CassetteCodec().load(cassette)
        #expect(stored.interactions.first?.request.url == url)
        try await ReplayHarness.run(files: [cassette]) { (harness: ReplayHarness) async throws in
            let caFile = directory.appending(path: "replay-ca.pem")
            try Data(harness.responder.authority.certificatePEM().utf8).write(to: caFile)
            let replayed = try await Curl.run(["--proxy", harness.base, "--cacert", caFile.path, url])
            #expect(replayed.text == "Hello Tls!")
        }
    }

    @Test(.requires(.curl)) func upstreamTrustDecidesWhetherHTTPSUpstreamsAreReached() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await TestUpstream.start(certificate: try TestCertificate.make())
        defer { Task { try? await upstream.stop() } }
        let strict = RecordSettings(cassette: directory.appending(path: "strict.json"), target: upstream.target)
        try await RecordHarness.run(settings: strict) { (harness: RecordHarness) async throws in
            let result = try await Curl.run(["--include", harness.base + "/plaintext?name=X"])
            #expect(result.text.hasPrefix("HTTP/1.1 502"))
            #expect(result.text.contains("Tapedeck-Error: upstream-unreachable"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "strict.json").path))
        let insecure = RecordSettings(cassette: directory.appending(path: "insecure.json"), target: upstream.target,
                                      trust: UpstreamTrust(insecure: true))
        try await RecordHarness.run(settings: insecure) { (harness: RecordHarness) async throws in
            #expect(try await Curl.run([harness.base + "/plaintext?name=X"]).text == "Hello X!")
        }
        #expect(try CassetteCodec().load(directory.appending(path: "insecure.json")).interactions.count == 1)
    }

    @Test(.requires(.curl)) func largeJSONBodyIsRedactedBeforeAnyOfItIsWritten() async throws {
        _ = try await RecordHarness.recordFromTestUpstream { harness, _ in
            let body = try await Curl.run([harness.base + "/large-json"]).text
            #expect(body.contains(TestUpstream.largeJSONToken), "the client gets the live answer")
            let deadline = ContinuousClock.now + .seconds(5) * Deadlines.scale
            while harness.responder.recorder.interactionCount == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try harness.responder.recorder.flush()
            let folder = harness.responder.recorder.file.deletingLastPathComponent()
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath } ?? []
            let contents = try files.map { try Data(contentsOf: $0) }
            #expect(contents.contains { $0.range(of: Data(#""access_token":"<redacted>""#.utf8)) != nil })
            #expect(!contents.contains { $0.range(of: Data(TestUpstream.largeJSONToken.utf8)) != nil },
                    "no file beside the cassette holds the live token: \(files.map(\.lastPathComponent))")
        }
    }

    /// RFC 9110 section 7.6.1: a field the `Connection` field names belongs to that one hop, on
    /// the way in (the client's) and on the way back (the upstream's).
    @Test(.requires(.curl, .python3)) func fieldsTheConnectionFieldNamesAreNeitherForwardedNorRecorded() async throws {
        let upstream = try EchoUpstream(routes: ["/hop": EchoUpstream.route(
            body: [:], echoHeader: "X-Client-Hop", headers: ["Connection": "X-Upstream-Hop", "X-Upstream-Hop": "upstream's"])])
        defer { upstream.stop() }
        let cassette = try Fixtures.temporaryDirectory().appending(path: "hop.json")
        let answer = try await RecordHarness.run(settings: RecordSettings(cassette: cassette, target: try ReverseProxyTarget(upstream.baseURL))) {
            (harness: RecordHarness) async throws in
            try await Curl.run(["-i", "-H", "Connection: X-Client-Hop", "-H", "X-Client-Hop: client's", harness.base + "/hop"]).text
        }
        #expect(answer.contains(#""echo": null"#), "the upstream did not get the client's hop field: \(answer)")
        #expect(!answer.contains("X-Upstream-Hop"), "the client did not get the upstream's: \(answer)")
        let stored = try CassetteCodec().load(cassette).interactions[0]
        #expect(!stored.request.headers.contains("X-Client-Hop") && !stored.response.headers.contains("X-Upstream-Hop"))
        #expect(stored.response.headers["X-Echo"] == "None", "the recorded answer is otherwise whole")
    }

    @Test func unreachableUpstreamGives502AndRecordsNothing() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let refusing = try RefusingPort()
        let cassette = directory.appending(path: "none.json")
        try await RecordHarness.run(settings: RecordSettings(cassette: cassette, target: try ReverseProxyTarget("http://127.0.0.1:\(refusing.port)"))) { (harness: RecordHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                let response = try await Clients.send(client, .GET, harness.base + "/plaintext?name=X")
                #expect(response.status == 502)
                #expect(response.headers.first(name: "Tapedeck-Error") == "upstream-unreachable")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: cassette.path))
    }

    // A silent upstream (504 at the timeout, nothing recorded, the connection goes on) is
    // EmbeddedModeTests.aSilentUpstreamGets504AtTheTimeoutAndNothingIsRecorded, on the embedded clock.

    @Test(.requires(.curl)) func clientLeavingMidRequestOrMidResponseIsNotRecordedAndOthersAreServed() async throws {
        let stored = try await RecordHarness.recordFromTestUpstream { harness, upstream in
            do {
                let midResponse = try RawSocket(port: harness.server.port)
                midResponse.send("GET /stall-body HTTP/1.1\r\nHost: x\r\n\r\n")
                let (data, _) = await midResponse.read { $0.occurrences(of: "first half") == 1 }
                #expect(data.occurrences(of: "first half") == 1)
                midResponse.hangUp()
            }
            do {
                let midRequest = try RawSocket(port: harness.server.port)
                midRequest.send("POST /postName HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nname=half")
                midRequest.hangUp()
            }
            // The upstream never finishes /stall-body: only the proxy passing the hang-up on ends it.
            let deadline = ContinuousClock.now + .seconds(5) * Deadlines.scale
            while upstream.abandonedStalls.withLock({ $0 }) == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(upstream.abandonedStalls.withLock { $0 } == 1, "the proxy closes the upstream connection of a client that left")
            #expect(try await Curl.run([harness.base + "/plaintext?name=Still"]).text == "Hello Still!")
        }.cassette
        #expect(stored.interactions.map(\.request.target.path) == ["/plaintext"])
    }

    @Test(.requires(.curl)) func keptUpstreamConnectionClosedUnderARequestIsReplacedOnce() async throws {
        let stored = try await RecordHarness.recordFromTestUpstream { harness, upstream in
            // One curl, one client connection: the second request goes to the kept upstream
            // connection, which the upstream closes instead of answering.
            let result = try await Curl.run([harness.base + "/one-per-connection?n=1", harness.base + "/one-per-connection?n=2"])
            #expect(result.text == "served 1\nserved 2\n")
            #expect(upstream.requests.withLock { $0 } == 3, "the second request reached the upstream twice")
        }.cassette
        #expect(stored.interactions.map(\.request.target.query) == ["n=1", "n=2"])
    }

    @Test func pipelinedRequestsAreForwardedOneAtATimeAnsweredInOrderAndRecorded() async throws {
        let stored = try await RecordHarness.recordFromTestUpstream { harness, _ in
            // Three requests in one write: the proxy reads ahead while the first is upstream and
            // must hold the others until its answer is complete.
            let connection = try RawSocket(port: harness.server.port)
            connection.send((1...3).map { "GET /counter?i=\($0) HTTP/1.1\r\nHost: x\r\n\($0 == 3 ? "Connection: close\r\n" : "")\r\n" }.joined())
            let (data, ending) = await connection.read()
            #expect(ending == .closed)
            let text = String(decoding: data, as: UTF8.self)
            let answers = (1...3).map { text.range(of: "for \($0)")?.lowerBound }
            #expect(answers.allSatisfy { $0 != nil } && answers == answers.sorted { $0! < $1! }, "\(text)")
            #expect(data.occurrences(of: "HTTP/1.1 200") == 3)
        }.cassette
        #expect(stored.interactions.map(\.request.target.query) == ["i=1", "i=2", "i=3"])
    }

    @Test func twoHundredConcurrentRequestsAreAllRecorded() async throws {
        // AsyncHTTPClient queues the 200 requests on a few connections and fails one that waits for a
        // connection longer than its connect timeout (10 s by default): under the thread sanitizer on a
        // slow 2-core machine the last ones waited longer. The test is about what is recorded, not how fast.
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout.connect = .seconds(60 * Int64(Deadlines.scale))
        let stored = try await RecordHarness.recordFromTestUpstream { harness, _ in
            try await Clients.withHTTPClient(configuration) { (client: HTTPClient) async throws in
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<200 {
                        group.addTask { try await Clients.send(client, .GET, harness.base + "/counter?i=\(index)").status }
                    }
                    for try await status in group { #expect(status == 200) }
                }
            }
        }.cassette
        #expect(stored.interactions.count == 200)
        let indices = Set(stored.interactions.compactMap { $0.request.url.split(separator: "=").last.map(String.init) })
        #expect(indices == Set((0..<200).map(String.init)))
    }

    @Test(.requires(.curl)) func defaultRedactionsApplyBeforeWriting() async throws {
        let (text, stored) = try await RecordHarness.recordFromTestUpstream { harness, _ in
            let result = try await Curl.run([
                "-H", "Authorization: Bearer s1", "-H", "Cookie: id=s2", "-H", "X-Api-Key: s3", "-H", "Content-Type: application/json",
                "--data", #"{"user":"me","password":"s4","client_secret":"s5","nested":{"id_token":"s6"}}"#,
                harness.base + "/login?access_token=s7&api_key=s8&apikey=s9&client_secret=s10&password=s11&token=s12&keep=yes"])
            #expect(result.text.contains("live-secret"))
        }
        for secret in ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "live-secret", "r-secret", "abc123"] {
            #expect(!text.contains("\"\(secret)\"") && !text.contains("=\(secret)") && !text.contains(" \(secret)"), "\(secret) was written")
        }
        let interaction = try #require(stored.interactions.first)
        #expect(interaction.request.headers["Authorization"] == Redactor.placeholder)
        #expect(interaction.request.headers["Cookie"] == Redactor.placeholder)
        #expect(interaction.request.headers["X-Api-Key"] == Redactor.placeholder)
        #expect(interaction.response.headers["Set-Cookie"] == Redactor.placeholder)
        #expect(interaction.request.url.contains("keep=yes"))
    }

    @Test(.requires(.curl)) func modesDecideWhatIsRecordedAndWhatIsReplayed() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await TestUpstream.start()
        let cassette = directory.appending(path: "modes.json")
        func get(_ mode: RecordMode, _ paths: [String]) async throws -> [String] {
            try await RecordHarness.run(settings: RecordSettings(cassette: cassette, target: upstream.target, mode: mode)) { (harness: RecordHarness) async throws in
                var answers: [String] = []
                for path in paths { answers.append(try await Curl.run([harness.base + path]).text) }
                return answers
            }
        }
        // once, no cassette yet: records.
        let first = try await get(.once, ["/counter?i=a"])
        #expect(first.first?.hasPrefix("answer ") == true)
        // once, cassette exists: pure replay; unknown requests are unmatched.
        let onceAgain = try await get(.once, ["/counter?i=a", "/counter?i=b"])
        #expect(onceAgain[0] == first[0])
        #expect(onceAgain[1].contains("no-match"))
        #expect(try CassetteCodec().load(cassette).interactions.count == 1)
        // new-episodes: replays what matches, records the rest; polling records each answer.
        let episodes = try await get(.newEpisodes, ["/counter?i=a", "/counter?i=b", "/counter?i=b"])
        #expect(episodes[0] == first[0])
        #expect(episodes[1] != episodes[2])
        #expect(try CassetteCodec().load(cassette).interactions.count == 3)
        // all: a fresh cassette with everything forwarded.
        let all = try await get(.all, ["/counter?i=a"])
        #expect(all[0] != first[0])
        #expect(try CassetteCodec().load(cassette).interactions.count == 1)
        try await upstream.stop()
    }

    @Test(.requires(.curl)) func interactionIsOnDiskWithinOneSecond() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await TestUpstream.start()
        let cassette = directory.appending(path: "durable.json")
        try await RecordHarness.run(settings: RecordSettings(cassette: cassette, target: upstream.target)) { (harness: RecordHarness) async throws in
            #expect(try await Curl.run([harness.base + "/plaintext?name=Disk"]).text == "Hello Disk!")
            let deadline = ContinuousClock.now + .seconds(1) * Deadlines.scale
            var count = 0
            while ContinuousClock.now < deadline {
                count = (try? CassetteCodec().load(cassette).interactions.count) ?? 0
                if count == 1 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(count == 1)
        }
        try await upstream.stop()
    }

    @Test(.requires(.curl)) func targetWithAPathPrefixesEveryRequestPath() async throws {
        var upstreamBase = ""
        let (_, cassette) = try await RecordHarness.recordFromTestUpstream(settings: { cassette, upstream in
            upstreamBase = upstream.base
            return RecordSettings(cassette: cassette, target: try ReverseProxyTarget(upstream.base + "/api/v1/"))
        }) { harness, _ in
            // The test upstream's 404 names the path it was asked for.
            let answer = try await Curl.run([harness.base + "/things?b=2&a=1"]).text
            #expect(answer == #"{"error":"no route /api/v1/things"}"#)
        }
        #expect(cassette.interactions.map(\.request.url) == [upstreamBase + "/api/v1/things?b=2&a=1"])
    }

    @Test(.requires(.curl)) func passthroughHostIsTunnelledAndNotRecorded() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (upstream, upstreamCA) = try await TestUpstream.startSecure(writingAuthorityTo: directory)
        let cassette = directory.appending(path: "pass.json")
        let settings = RecordSettings(cassette: cassette, passthroughHosts: ["localhost"])
        try await RecordHarness.run(settings: settings) { (harness: RecordHarness) async throws in
            // The client sees the upstream's own certificate: the tunnel is untouched.
            let result = try await Curl.run(["--proxy", harness.base, "--cacert", upstreamCA.path, "https://localhost:\(upstream.port)/plaintext?name=Pass"])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.text == "Hello Pass!")
        }
        try await upstream.stop()
        #expect(!FileManager.default.fileExists(atPath: cassette.path))
    }
}

/// WebSocket upgrades to a passthrough host (recorded ones are in WebSocketTests).
@Suite struct WebSocketTunnelTests {
    @Test(.requires(.curl)) func aPassthroughHostsWebSocketUpgradeIsTunnelledAndNotRecorded() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await EchoUpgradeUpstream.start()
        let cassette = directory.appending(path: "ws.json")
        let settings = RecordSettings(cassette: cassette, target: try ReverseProxyTarget("http://127.0.0.1:\(upstream.port)"),
                                      passthroughHosts: ["127.0.0.1"])
        try await RecordHarness.run(settings: settings) { (harness: RecordHarness) async throws in
            let connection = try RawSocket(port: harness.server.port)
            connection.send("GET /socket HTTP/1.1\r\nHost: 127.0.0.1:\(harness.server.port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            let (head, _) = await connection.read { $0.occurrences(of: "\r\n\r\n") == 1 }
            let text = String(decoding: head, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 101 Switching Protocols"))
            #expect(text.contains("X-Saw-Host: true"))
            connection.send(Data([0x81, 0x05, 0x68, 0x65, 0x6C, 0x6C, 0x6F]))
            let (echo, _) = await connection.read { $0.count >= 7 }
            #expect(echo == Data([0x81, 0x05, 0x68, 0x65, 0x6C, 0x6C, 0x6F]))
            #expect(try await Curl.run([harness.base + "/__tapedeck/health"]).text.contains("new-episodes"))
        }
        try await upstream.stop()
        #expect(!FileManager.default.fileExists(atPath: cassette.path))
    }
}
