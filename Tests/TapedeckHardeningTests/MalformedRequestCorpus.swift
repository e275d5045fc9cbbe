import Foundation

/// Requests no well-behaved client sends: broken request lines, lying lengths, smuggling
/// attempts, oversized and binary heads, hostile control headers. Each is named for the report.
enum MalformedRequestCorpus {
    /// One hostile input and the statuses acceptable for it (empty: any answer, or a close).
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let bytes: Data
        let acceptable: Set<Int>
        var description: String { name }
    }

    private static func text(_ name: String, _ request: String, _ acceptable: Set<Int> = []) -> Case {
        Case(name: name, bytes: Data(request.utf8), acceptable: acceptable)
    }

    /// The corpus; run against `tapedeck replay --max-body 1024 --cassette-dir DIR example.json`.
    static let cases: [Case] = {
        var cases: [Case] = [
            text("empty line only", "\r\n\r\n", [400]),
            text("garbage request line", "GARBAGE\r\n\r\n", [400]),
            text("method only", "GET\r\n\r\n", [400]),
            text("unknown HTTP version", "GET / HTTP/9.9\r\nHost: x\r\n\r\n", [400, 505]),
            text("negative Content-Length", "POST /postName HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", [400]),
            text("non-numeric Content-Length", "POST /postName HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", [400]),
            text("two different Content-Lengths", "POST /postName HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde", [400]),
            text("Content-Length with chunked", "POST /postName HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", [400, 599]),
            text("bad chunk size", "POST /postName HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", [400]),
            text("header without colon", "GET / HTTP/1.1\r\nHost x\r\n\r\n", [400]),
            text("space before colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", [400]),
            text("NUL in path", "GET /pla\u{0}intext HTTP/1.1\r\nHost: x\r\n\r\n", [400]),
            text("lone LF line endings", "GET /plaintext?name=Shawn HTTP/1.1\nHost: x\nConnection: close\n\n", [200, 400]),
            text("very long URI (100 KB)", "GET /" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", [400, 414, 431]),
            text("header block over 64 KiB", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 70_000) + "\r\n\r\n", [400, 431]),
            text("2,000 headers", "GET / HTTP/1.1\r\nHost: x\r\n" + (0..<2000).map { "X-H\($0): v\r\n" }.joined() + "\r\n", [400, 431]),
            text("body over --max-body", "POST /postName HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "z", count: 5000), [413]),
            text("chunked body over --max-body", "POST /postName HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n" + String(repeating: "z", count: 4096) + "\r\n0\r\n\r\n", [413]),
            text("absolute URL with port 99999", "GET http://api.example.test:99999/plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", [400, 599]),
            text("absolute URL with broken IPv6 host", "GET http://[::1/plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", [400, 599]),
            text("CONNECT without a port", "CONNECT nohostport HTTP/1.1\r\nHost: x\r\n\r\n", [400]),
            text("CONNECT to port 0", "CONNECT example.test:0 HTTP/1.1\r\nHost: x\r\n\r\n", [400]),
            text("OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", [400, 599]),
            text("unknown method", "BREW /pot HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", [400, 405, 599]),
            text("percent-encoded NUL and bad escapes", "GET /%zz%00%ff?%%=%G1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", [400, 599]),
            text("many slashes", "GET //////// HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", [599]),
            text("HTTP/1.0 without Host", "GET /plaintext?name=Shawn HTTP/1.0\r\n\r\n", [200, 400]),
            text("gzip body that is not gzip", "POST /postName HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot gzip!", [400, 599]),
            text("JSON body that is not JSON", "POST /postBodyData HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 12\r\nConnection: close\r\n\r\n{\"a\": [1, 2", [400, 599]),
            text("form body with broken escapes", "POST /postName HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\nConnection: close\r\n\r\n%zz=%&&=%=%", [400, 599]),
            text("multipart without boundary", "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data\r\nContent-Length: 5\r\nConnection: close\r\n\r\n--xx-", [400, 599]),
            text("cassette name with ..", "GET /plaintext HTTP/1.1\r\nHost: x\r\nTapedeck-Cassette: ../../etc/passwd\r\nConnection: close\r\n\r\n", [400]),
            text("absolute cassette path", "GET /plaintext HTTP/1.1\r\nHost: x\r\nTapedeck-Cassette: /etc/passwd\r\nConnection: close\r\n\r\n", [400]),
            text("empty cassette name", "GET /plaintext HTTP/1.1\r\nHost: x\r\nTapedeck-Cassette: \r\nConnection: close\r\n\r\n", [400]),
            text("missing cassette", "GET /plaintext HTTP/1.1\r\nHost: x\r\nTapedeck-Cassette: nothing-here\r\nConnection: close\r\n\r\n", [400]),
            text("huge session name", "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\nTapedeck-Session: " + String(repeating: "s", count: 60_000) + "\r\nConnection: close\r\n\r\n", [200]),
            text("WebSocket upgrade on replay", "GET /events HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", [200, 400, 599]),
            text("Expect: 100-continue then nothing", "POST /postName HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n"),
            text("head never finished", "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\n"),
            text("body shorter than Content-Length", "POST /postName HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nshort"),
            text("admin path traversal", "GET /__tapedeck/../../etc/passwd HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", [404]),
            text("admin reset with GET", "GET /__tapedeck/reset HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", [405]),
            text("100 pipelined requests", String(repeating: "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\n\r\n", count: 100)
                 + "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", [200]),
            Case(name: "non-UTF-8 header value", bytes: Data("GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\nX-Bin: ".utf8) + Data([0xFF, 0xFE, 0xC0, 0x80])
                 + Data("\r\nConnection: close\r\n\r\n".utf8), acceptable: [200, 400]),
        ]
        // Seeded random bytes: the same garbage every run.
        var generator = SplitMix64(seed: 0x7A9E_DEC0)
        for number in 0..<8 {
            let length = 16 + Int(generator.next() % 2048)
            let bytes = Data((0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            cases.append(Case(name: "random bytes #\(number) (\(length) B)", bytes: bytes, acceptable: []))
        }
        return cases
    }()
}

/// A small deterministic random generator, so the corpus is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
