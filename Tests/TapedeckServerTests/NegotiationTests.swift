import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing

/// What goes on the wire for each client: gzip only to clients that accept it, no body where HTTP
/// forbids one, a recorded GET's head for a HEAD.
@Suite("Replay fidelity over real sockets", .serialized)
struct NegotiationTests {
    static let home = TestFiles.folder.appendingPathComponent("tapedeck-negotiation-home-\(UUID().uuidString)")

    func replay(_ cassette: String) throws -> (TapedeckProcess, String) {
        let server = try TapedeckProcess(["replay", cassette, "--port", "0"], environment: ["TAPEDECK_HOME": Self.home.path])
        return (server, "http://127.0.0.1:\(try server.waitUntilListening())")
    }

    @Test("a recorded gzip answer: decoded for Python's urllib (no Accept-Encoding), gzip for curl --compressed", .requires(.curl, .python3))
    func gzipOnlyWhenAccepted() async throws {
        let (server, base) = try replay("cassettes/example.json")
        defer { _ = server.stop() }
        let urllib = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", """
            import urllib.request
            response = urllib.request.urlopen("\(base)/gzip-json", timeout=\(Deadlines.clientCall))
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

    @Test("a recorded 304 carrying a body is sent without it, and the kept-alive connection goes on; HEAD gets a recorded GET's head",
          .requires(.curl))
    func noBodyWhereHTTPForbidsOne() async throws {
        let file = TestFiles.folder.appendingPathComponent("tapedeck-304-\(UUID().uuidString).json")
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

/// `Expect: 100-continue`: the server says Continue before the client sends its body.
@Suite("Expect: 100-continue", .serialized)
struct ExpectContinueTests {
    @Test("the replay server answers 100 Continue before the body, then the real answer; an oversized body is refused at once")
    func continueBeforeTheBody() async throws {
        let server = try TapedeckProcess(["replay", "cassettes/example.json", "--port", "0", "--max-body", "1000"],
                                         environment: ["TAPEDECK_HOME": NegotiationTests.home.path])
        defer { _ = server.stop() }
        let port = try server.waitUntilListening()
        let body = "name=Shawn&sex=1"
        let socket = try RawSocket(port: port)
        socket.send("POST /postName HTTP/1.1\r\nHost: api.example.test\r\nContent-Type: application/x-www-form-urlencoded; charset=utf-8\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        let interim = socket.readBlocking { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        #expect(String(decoding: interim.data, as: UTF8.self).hasPrefix("HTTP/1.1 100 Continue\r\n"), "sent before the body")
        socket.send(body)
        let answer = socket.readBlocking { String(decoding: $0, as: UTF8.self).contains("Hi Shawn") }
        #expect(String(decoding: answer.data, as: UTF8.self).contains("HTTP/1.1 200"))

        let refused = try await RawSocket.exchange(port: port, "POST /postName HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
        let text = String(decoding: refused.data, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 413"), "no 100 Continue for a body it will refuse: \(text.prefix(40))")
    }

    @Test("curl uploading 2 MB with Expect: 100-continue gets its answer through the replay server", .requires(.curl))
    func curlUpload() async throws {
        let server = try TapedeckProcess(["replay", "cassettes/example.json", "--port", "0"],
                                         environment: ["TAPEDECK_HOME": NegotiationTests.home.path])
        defer { _ = server.stop() }
        let port = try server.waitUntilListening()
        let file = TestFiles.folder.appendingPathComponent("tapedeck-upload-\(UUID().uuidString)")
        try Data(repeating: UInt8(ascii: "x"), count: 2 << 20).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Curl.run(["-v", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Expect: 100-continue",
                                         "--data-binary", "@\(file.path)", "http://127.0.0.1:\(port)/nothing-recorded"])
        #expect(result.error.contains("HTTP/1.1 100 Continue"))
        #expect(result.text == "599")
    }
}
