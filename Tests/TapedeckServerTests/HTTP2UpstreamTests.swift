import Foundation
import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// nginx (`listen ... ssl http2`) as an HTTPS upstream that speaks HTTP/2 (SPEC 12): the upstream
/// leg speaks what the client spoke, agreed by ALPN, through the reverse proxy and through the
/// intercepting forward proxy; nginx's own `$server_protocol` says which it heard.
@Suite(.enabled(if: NginxServer.path != nil, Comment(rawValue: NginxServer.missing)))
struct HTTP2UpstreamTests {
    /// Runs `body` with nginx answering on a free port, with a certificate for 127.0.0.1 made by
    /// the openssl command line, once it answers; `body` gets a folder of its own, the port and
    /// the certificate. nginx and the folder are gone afterwards.
    private func withNginx(_ body: (_ directory: URL, _ port: Int, _ certificate: URL) async throws -> Void) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (certificate, key) = try await LoopbackCertificate.make(in: directory)
        let port = try RefusingPort().port
        let nginx = try NginxServer(http: """
            server {
              listen 127.0.0.1:\(port) ssl http2; ssl_certificate \(certificate.path); ssl_certificate_key \(key.path);
              location / { default_type text/plain; add_header X-Served-By nginx; return 200 "$server_protocol $request_uri\\n"; }
            }
            """, in: directory)
        defer { nginx.stop() }
        try await waitUntil {
            (try? await ChildProcess.runOnOwnThread(URL(filePath: "/usr/bin/env"), ["curl", "-sS", "--cacert", certificate.path,
                                                                   "https://127.0.0.1:\(port)/up"]))?.output.hasPrefix("HTTP/") == true
        }
        try await body(directory, port, certificate)
    }

    @Test(.requires(.curl, .openssl)) func h2ClientsAreForwardedOverH2AndHTTP1ClientsOverHTTP1() async throws {
        try await withNginx { directory, port, certificate in
            let trust = UpstreamTrust(extraRoots: [certificate])

            // Reverse proxy: curl by prior knowledge, then over HTTP/1.1.
            let reverse = directory.appending(path: "reverse.json")
            try await RecordHarness.run(settings: RecordSettings(cassette: reverse, target: try ReverseProxyTarget("https://127.0.0.1:\(port)"),
                                                                trust: trust)) { harness in
                let h2 = try await Curl.run(["-sS", "--http2-prior-knowledge", harness.base + "/two"])
                #expect(h2.text == "HTTP/2.0 /two\n", "\(h2.text) \(h2.error)")
                let h1 = try await Curl.run(["-sS", "--http1.1", harness.base + "/one"])
                #expect(h1.text == "HTTP/1.1 /one\n", "\(h1.text) \(h1.error)")
                try await waitUntil { harness.responder.recorder.interactionCount == 2 }
            }
            let recorded = try CassetteCodec().load(reverse).interactions
            #expect(recorded.map(\.httpVersion) == ["2", "1.1"])
            #expect(recorded.first?.response.headers["X-Served-By"] == "nginx")

            // Forward proxy: curl negotiates h2 inside the intercepted tunnel, and so does the upstream leg.
            let forward = directory.appending(path: "forward.json")
            try await RecordHarness.run(settings: RecordSettings(cassette: forward, trust: trust)) { harness in
                let ca = try harness.authorityFile()
                let h2 = try await Curl.run(["-sS", "--http2", "--proxy", harness.base, "--cacert", ca.path,
                                             "https://127.0.0.1:\(port)/tunnelled"])
                #expect(h2.text == "HTTP/2.0 /tunnelled\n", "\(h2.text) \(h2.error)")
                try await waitUntil { harness.responder.recorder.interactionCount == 1 }
            }
            #expect(try CassetteCodec().load(forward).interactions.map(\.httpVersion) == ["2"])
        }
    }

    /// Python's requests (HTTP/1.1) and httpx (HTTP/2, by ALPN inside the tunnel), trusting only
    /// the minted certificates' authority (`scripts/python_https_calls.py`).
    @Test(.requires(.curl, .openssl, .httpx, .h2, .requests)) func pythonRequestsAndHttpxRecordAndReplayThroughTheInterception() async throws {
        try await recordsAndReplaysThroughTheInterception(
            ["python3", ExampleUpstream.repositoryRoot.appending(path: "scripts/python_https_calls.py").path],
            printing: "requests 11 200 HTTP/1.1 /via-requests\nhttpx HTTP/2 200 HTTP/2.0 /via-httpx\n")
    }

    /// Java's HttpClient over HTTP/1.1 and over HTTP/2 (by ALPN inside the tunnel), trusting only
    /// the minted certificates' authority (`scripts/JavaHttpsCalls.java`, run from its source).
    @Test(.requires(.curl, .openssl), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/java"),
                   "java is not installed (apt-get install -y default-jdk-headless); the test is skipped"))
    func javaHttpClientRecordsAndReplaysThroughTheInterception() async throws {
        try await recordsAndReplaysThroughTheInterception(
            ["java", ExampleUpstream.repositoryRoot.appending(path: "scripts/JavaHttpsCalls.java").path],
            printing: "java HTTP_1_1 200 HTTP/1.1 /via-java-http1\njava HTTP_2 200 HTTP/2.0 /via-java-h2\n")
    }

    /// Runs a client program (`command`, then the proxy's URL, the authority's PEM file and nginx's
    /// base URL) through the intercepting proxy, then against the replay server's HTTPS
    /// forward-proxy mode: both times it prints `printing` (nginx names the protocol it heard),
    /// and the cassette holds one HTTP/1.1 exchange and one HTTP/2 exchange, in that order.
    private func recordsAndReplaysThroughTheInterception(_ command: [String], printing expected: String) async throws {
        try await withNginx { directory, port, certificate in
            func calls(proxy: String, authority: URL) async throws -> String {
                let result = try await Subprocess.run(executable: "/usr/bin/env",
                                                      arguments: command + [proxy, authority.path, "https://127.0.0.1:\(port)"])
                #expect(result.status == 0, "\(result.text) \(result.error)")
                return result.text
            }
            let cassette = directory.appending(path: "client.json")
            try await RecordHarness.run(settings: RecordSettings(cassette: cassette, trust: UpstreamTrust(extraRoots: [certificate]))) { harness in
                #expect(try await calls(proxy: harness.base, authority: try harness.authorityFile()) == expected)
                try await waitUntil { harness.responder.recorder.interactionCount == 2 }
            }
            #expect(try CassetteCodec().load(cassette).interactions.map(\.httpVersion) == ["1.1", "2"])
            try await ReplayHarness.run(files: [cassette]) { harness in
                let authority = directory.appending(path: "replay-ca.pem")
                _ = try await Curl.run(["--output", authority.path, harness.base + "/__tapedeck/ca.pem"])
                #expect(try await calls(proxy: harness.base, authority: authority) == expected)
            }
        }
    }

    /// A TLS handshake that fails (nginx's certificate is not trusted) is a 502 naming the cause, at
    /// once, for an HTTP/2 client as for an HTTP/1.1 one; nothing is recorded.
    @Test(.requires(.curl, .openssl)) func anUntrustedUpstreamIsA502ForAnHTTP2Client() async throws {
        try await withNginx { directory, port, certificate in
            let cassette = directory.appending(path: "untrusted.json")
            try await RecordHarness.run(settings: RecordSettings(cassette: cassette, target: try ReverseProxyTarget("https://127.0.0.1:\(port)"))) { harness in
                for version in ["--http2-prior-knowledge", "--http1.1"] {
                    let answer = try await Curl.run(["-sS", "--max-time", "10", version, "--write-out", "\n%{http_code}", harness.base + "/nope"])
                    #expect(answer.text.hasSuffix("\n502"), "\(version): \(answer.text) \(answer.error)")
                    #expect(answer.text.contains("upstream-unreachable") || answer.text.contains("cannot reach the upstream"), "\(answer.text)")
                }
                #expect(harness.responder.recorder.interactionCount == 0)
            }
        }
    }

    /// Headless Chromium through the intercepting proxy negotiates h2 with it, so the upstream leg
    /// speaks h2 to nginx too: the page nginx answers names the protocol it heard.
    @Test(.requires(.curl, .python3, .openssl), .enabled(if: Chromium.path != nil, Comment(rawValue: Chromium.missing)))
    func chromiumNegotiatesH2ThroughTheInterception() async throws {
        try await withNginx { directory, port, certificate in
            let cassette = directory.appending(path: "chromium.json")
            try await RecordHarness.run(settings: RecordSettings(cassette: cassette, trust: UpstreamTrust(extraRoots: [certificate]))) { harness in
                // Chromium sends loopback addresses around a proxy unless told not to; the minted certificate is not in its store.
                let dom = try await Chromium.dumpDOM("https://127.0.0.1:\(port)/through-chromium",
                                                     flags: Chromium.proxy(harness.base) + ["--ignore-certificate-errors"])
                #expect(dom.contains("HTTP/2.0 /through-chromium"), "\(dom)")
                try await waitUntil { harness.responder.recorder.interactionCount >= 1 }
            }
            let recorded = try CassetteCodec().load(cassette).interactions
            #expect(recorded.contains { $0.request.url.hasSuffix("/through-chromium") && $0.httpVersion == "2" })
        }
    }
}
