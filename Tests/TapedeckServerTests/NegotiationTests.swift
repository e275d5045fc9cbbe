import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing

/// What goes on the wire for each client: gzip only to clients that accept it, no body where HTTP
/// forbids one, a recorded GET's head for a HEAD.
@Suite("Replay fidelity over real sockets", .serialized)
struct NegotiationTests {
    static let home = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-negotiation-home-\(UUID().uuidString)")

    func replay(_ cassette: String) throws -> (TapedeckProcess, String) {
        let server = try TapedeckProcess(["replay", cassette, "--port", "0"], environment: ["TAPEDECK_HOME": Self.home.path])
        return (server, "http://127.0.0.1:\(try server.waitUntilListening())")
    }

    @Test("a recorded gzip answer: decoded for Python's urllib (no Accept-Encoding), gzip for curl --compressed")
    func gzipOnlyWhenAccepted() async throws {
        let (server, base) = try replay("cassettes/example.json")
        defer { _ = server.stop() }
        let urllib = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", """
            import urllib.request
            response = urllib.request.urlopen("\(base)/gzip-json", timeout=10)
            body = response.read()
            print(response.headers.get("Content-Encoding"), response.headers.get("Content-Length") == str(len(body)), body[:1].decode())
            """]).text
        #expect(urllib.trimmingCharacters(in: .whitespacesAndNewlines) == "None True {")
        let gzip = try await Curl.run(["-s", "-D", "-", "-o", "/dev/null", "-H", "Accept-Encoding: gzip", "\(base)/gzip-json"])
        #expect(gzip.text.lowercased().contains("content-encoding: gzip"))
        let compressed = try await Curl.run(["--compressed", "\(base)/gzip-json"])
        #expect(compressed.text.contains(#""compressed":true"#))
        let identityOnly = try await Curl.run(["-s", "-D", "-", "-H", "Accept-Encoding: identity", "\(base)/gzip-json"])
        #expect(!identityOnly.text.lowercased().contains("content-encoding"))
        #expect(identityOnly.text.contains(#""compressed":true"#))
    }

    @Test("a recorded 304 carrying a body is sent without it, and the kept-alive connection goes on; HEAD gets a recorded GET's head")
    func noBodyWhereHTTPForbidsOne() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-304-\(UUID().uuidString).json")
        try CassetteCodec().save(Cassette(interactions: [
            Interaction(request: CassetteRequest(method: "GET", url: "/page", headers: ["If-None-Match": "\"v1\""]),
                        response: CassetteResponse(status: 304, headers: ["ETag": "\"v1\""], body: Body(text: String(repeating: "stale ", count: 4000)))),
            Interaction(request: CassetteRequest(method: "GET", url: "/page"),
                        response: CassetteResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Body(text: "fresh page"))),
        ]), to: file)
        let (server, base) = try replay(file.path)
        defer { _ = server.stop() }
        // Two requests on one connection: a stray body after the 304 would corrupt the second answer.
        let both = try await Curl.run(["-s", "-H", "If-None-Match: \"v1\"", "-w", "%{http_code} %{size_download}\\n", "\(base)/page",
                                       "--next", "-s", "-w", "%{http_code}\\n", "\(base)/page"])
        #expect(both.text == "304 0\nfresh page200\n")
        let head = try await Curl.run(["-s", "-I", "\(base)/page"])
        #expect(head.text.hasPrefix("HTTP/1.1 200"))
        #expect(head.text.lowercased().contains("content-length: 10"))
    }
}
