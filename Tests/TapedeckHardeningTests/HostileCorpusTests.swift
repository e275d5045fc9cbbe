import Foundation
import TapedeckTestSupport
import Testing

/// A small corpus of hostile stubs, cassettes and imported files (issue "Safe on a developer's
/// machine"): `tapedeck lint` and `tapedeck har import` refuse each with the place, never
/// crashing; the loadable ones are served while hostile requests arrive, and the server stays up
/// in bounded memory.
@Suite struct HostileCorpusTests {
    /// Runs `tapedeck ARGUMENTS` to its end: exit status and everything it printed.
    private func tapedeck(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try ChildProcess.run(try TapedeckBinary.locate(), arguments)
        #expect(!result.diedBySignal, "tapedeck \(arguments) died by a signal")
        return (result.status, result.output)
    }

    private static func cassette(interactions: String = "[]", stubs: String = "[]") -> String {
        #"{"version": 1, "interactions": \#(interactions), "stubs": \#(stubs)}"#
    }

    /// Files nothing may load, with what the refusal must name.
    private static let refused: [(name: String, text: String, says: String)] = [
        ("huge-delay.json", cassette(stubs: #"[{"request": {"path": "/x"}, "response": {"status": 200, "delayMs": 1e13}}]"#), "delayMs"),
        ("negative-delay.json", cassette(interactions: #"[{"request": {"method": "GET", "url": "/x"}, "response": {"status": 200}, "delayMs": -5}]"#), "delayMs"),
        ("split-header.json", cassette(interactions: #"[{"request": {"method": "GET", "url": "/x"}, "response": {"status": 200, "headers": {"X-A": ["a\r\nSet-Cookie: evil=1"]}}}]"#), "CR, LF or NUL"),
        ("nul-header.json", cassette(stubs: #"[{"request": {"path": "/x"}, "response": {"status": 200, "headers": {"X-A": ["a\u0000b"]}}}]"#), "CR, LF or NUL"),
        ("huge-status.json", cassette(interactions: #"[{"request": {"method": "GET", "url": "/x"}, "response": {"status": 1e20}}]"#), "status"),
        ("linked-side-file.json", cassette(interactions: #"[{"request": {"method": "GET", "url": "/x"}, "response": {"status": 200, "body": {"file": "linked-side-file.bodies/\#(String(repeating: "a", count: 64)).bin"}}}]"#), "link"),
        ("traversal.json", cassette(interactions: #"[{"request": {"method": "GET", "url": "/x"}, "response": {"status": 200, "body": {"file": "../../etc/passwd"}}}]"#), "NAME.bodies"),
        ("bad-regex.json", cassette(stubs: #"[{"request": {"pathRegex": "("}, "response": {"status": 200}}]"#), "pathRegex"),
    ]

    @Test func lintAndImportRefuseEachHostileFileWithItsPlace() throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bodies = directory.appending(path: "linked-side-file.bodies")
        try FileManager.default.createDirectory(at: bodies, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: bodies.appending(path: String(repeating: "a", count: 64) + ".bin"),
                                                   withDestinationURL: URL(filePath: "/etc/hostname"))
        for file in Self.refused {
            let path = directory.appending(path: file.name)
            try Data(file.text.utf8).write(to: path)
            let (status, output) = try tapedeck(["lint", path.path])
            #expect(status == 1, "\(file.name): \(output)")
            #expect(output.contains(file.name) && output.contains(file.says), "\(file.name): \(output)")
        }
        let har = directory.appending(path: "split.har")
        try Data(#"{"log": {"version": "1.2", "creator": {"name": "hostile", "version": "1"}, "entries": [{"startedDateTime": "2026-11-21T10:00:00Z", "time": 1, "request": {"method": "GET", "url": "https://api.example.test/x", "headers": [{"name": "X-A", "value": "a\r\nSet-Cookie: evil=1"}]}, "response": {"status": 200, "headers": [], "content": {"text": "ok"}}}]}}"#.utf8).write(to: har)
        let (status, output) = try tapedeck(["har", "import", har.path, "-o", directory.appending(path: "imported.json").path])
        #expect(status == 2, "\(output)")
        #expect(output.contains("entries[0].request.headers") && output.contains("CR, LF or NUL"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "imported.json").path))
    }

    @Test func hostileStubsAndRequestsLeaveTheServerUpInBoundedMemory() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = directory.appending(path: "hostile-stubs.json")
        try Data(Self.cassette(stubs: #"""
            [{"name": "backtracking", "request": {"pathRegex": "/(a+)+"}, "response": {"status": 200}},
             {"name": "amplifier", "request": {"method": "POST", "path": "/amplify"}, "response": {"status": 200, "body": {"text": "\#(String(repeating: "{{json.a}}", count: 200))"}, "templated": true}},
             {"name": "splitter", "request": {"path": "/split"}, "response": {"status": 200, "headers": {"X-Echo": ["{{query.x}}"]}, "templated": true}}]
            """#).utf8).write(to: stubs)
        let server = try TapedeckProcess(["replay", "--port", "0", "--stubs", stubs.path, HardeningFixtures.exampleCassette.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        let megabyte = #"{"a": ""# + String(repeating: "z", count: 1 << 20) + #""}"#
        for _ in 0..<4 {
            let backtrack = try await RawSocket.exchange(port: port, "GET /\(String(repeating: "a", count: 40))b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(backtrack.data.httpStatus == 599)
            let amplified = try await RawSocket.exchange(port: port, "POST /amplify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(megabyte.utf8.count)\r\nConnection: close\r\n\r\n\(megabyte)")
            #expect(amplified.data.httpStatus == 500)
            let split = try await RawSocket.exchange(port: port, "GET /split?x=a%0d%0aSet-Cookie:%20evil=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(split.data.httpStatus == 500)
            #expect(!String(decoding: split.data, as: UTF8.self).contains("Set-Cookie"))
        }
        for number in 0..<20 {
            let unmatched = try await RawSocket.exchange(port: port, "POST /nothing/\(number) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(megabyte.utf8.count)\r\nTapedeck-Session: s\(number)\r\nConnection: close\r\n\r\n\(megabyte)")
            #expect(unmatched.data.httpStatus == 599)
        }
        #expect(try await RawSocket.exchange(port: port, "GET /__tapedeck/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").data.httpStatus == 200)
        let peak = try #require(server.peakResidentKiB())
        #expect(peak < 200 * 1024, "peak resident memory \(peak / 1024) MiB")
    }
}
