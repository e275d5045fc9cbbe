// Connector replay benchmark: time per request with a 10- and a 100,000-interaction
// cassette, the small one again with an expiry age, the load time of the large one, and a
// request answered by the 1,000th of 1,000 stubs against the same request answered by a
// recording; and the piecewise JSON redaction of a large recorded body against hashing the same
// bytes. Run in release mode:
//
//     swift run -c release --package-path Benchmarks tapedeck-bench [--requests N]
//
// Figures are printed as absolute times and as ratios to the small cassette, measured in
// the same run, so they compare across machines.
import Foundation
import HTTPTypes
import Tapedeck
// The hash and the piecewise redactor are internals, reached through their one door for this measure.
@_spi(Benchmarks) import TapedeckCore

/// Builds a cassette of `count` GETs, each answered with a small JSON body.
func makeCassette(count: Int) -> Cassette {
    let interactions = (0..<count).map { number in
        Interaction(
            recordedAt: "2026-11-21T10:00:00.000Z",
            request: CassetteRequest(method: "GET", url: "https://api.example.test/items/\(number)?view=full&lang=en",
                                     headers: ["Accept": "application/json"]),
            response: CassetteResponse(status: 200, headers: ["Content-Type": "application/json"],
                                       body: Body(text: #"{"id":\#(number),"name":"item \#(number)","tags":["a","b"],"price":12.5}"#)),
            timing: Timing(firstByteMs: 10, totalMs: 12))
    }
    return Cassette(meta: CassetteMeta(createdAt: "2026-11-21T10:00:00Z", recordedWith: "tapedeck-bench"), interactions: interactions)
}

/// Average microseconds per request over `requests` sends cycling through the interactions at `positions`.
func timePerRequest(_ connector: CassetteConnector, positions: [Int], requests: Int) async throws -> Double {
    let prepared = positions.map { number -> HTTPRequest in
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.test",
                                  path: "/items/\(number)?lang=en&view=full")
        request.headerFields[.accept] = "application/json"
        return request
    }
    for request in prepared { _ = try await connector.send(request, body: nil) }  // warm up
    let clock = ContinuousClock()
    let start = clock.now
    for index in 0..<requests { _ = try await connector.send(prepared[index % prepared.count], body: nil) }
    let elapsed = start.duration(to: clock.now)
    return (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(requests)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let arguments = CommandLine.arguments
let requests = arguments.firstIndex(of: "--requests").flatMap { Int(arguments[$0 + 1]) } ?? 200_000
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

let smallFile = folder.appendingPathComponent("small.json")
let largeFile = folder.appendingPathComponent("large.json")
try CassetteCodec().save(makeCassette(count: 10), to: smallFile)
try CassetteCodec().save(makeCassette(count: 100_000), to: largeFile)
let largeSize = (try FileManager.default.attributesOfItem(atPath: largeFile.path)[.size] as? Int) ?? 0

let clock = ContinuousClock()
let loadStart = clock.now
let largeCassette = try CassetteCodec().load(largeFile)
let parseTime = loadStart.duration(to: clock.now)
let large = CassetteConnector(cassette: largeCassette, name: largeFile.path)
let loadTime = loadStart.duration(to: clock.now)
let small = try CassetteConnector(cassette: smallFile)

// The same request mix for both cassettes (10 distinct requests, spread over the cassette), so
// the ratio shows how lookup cost depends on cassette size; a third line spreads the requests
// over 1,000 distinct interactions, where memory locality also plays.
let smallTime = try await timePerRequest(small, positions: Array(0..<10), requests: requests)
let largeTime = try await timePerRequest(large, positions: (0..<10).map { $0 * 10_000 + 7 }, requests: requests)
let spreadTime = try await timePerRequest(large, positions: (0..<1000).map { $0 * 100 + 3 }, requests: requests)

// The small cassette with an expiry age (none of it expired): what checking each answer's age costs.
var expiring = PlaybackOptions()
expiring.expiry = ExpiryOptions(days: 36_500, policy: .error)
let expiryTime = try await timePerRequest(CassetteConnector(cassette: makeCassette(count: 10), name: "expiring", options: expiring),
                                          positions: Array(0..<10), requests: requests)

// Stubs are consulted only on a recording miss, through an index by method and first path
// segment: a request answered by the last of 1,000 stubs, against one answered by a recording.
let stubs = (0..<1000).map { number in
    Stub(request: RequestPattern(method: "GET", path: "/stub\(number)/{id}", headers: ["Accept": "application/json"]),
         response: StubResponse(status: 200, headers: ["Content-Type": "application/json"],
                                body: Body(text: #"{"id":"{{path.id}}","stub":\#(number)}"#), templated: true))
}
let stubbed = CassetteConnector(cassette: makeCassette(count: 1), name: "one", stubs: stubs)
let fewStubs = CassetteConnector(cassette: makeCassette(count: 1), name: "one", stubs: Array(stubs.suffix(10)))
var lastStub = HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: "/stub999/7")
lastStub.headerFields[.accept] = "application/json"
func timeRequests(_ request: HTTPRequest, on connector: CassetteConnector) async throws -> Double {
    _ = try await connector.send(request, body: nil)
    let start = clock.now
    for _ in 0..<requests { _ = try await connector.send(request, body: nil) }
    let elapsed = start.duration(to: clock.now)
    return (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(requests)
}
let recordedTime = try await timePerRequest(stubbed, positions: [0], requests: requests)
let stubTime = try await timeRequests(lastStub, on: stubbed)
let fewStubTime = try await timeRequests(lastStub, on: fewStubs)

// A JSON body past the whole-read limit is redacted piece by piece as its side file is installed,
// a pass over the bytes like the SHA-256 that names the file: 64 MiB in 1 MiB pieces, each timed.
let jsonPieces: [Data] = {
    var document = #"{"access_token": "secret", "items": ["#
    let item = #"{"id": 12345, "name": "item", "text": "lorem ipsum dolor sit amet, \"quoted\" [and] {braced}", "ok": true}, "#
    document += String(repeating: item, count: (64 << 20) / item.utf8.count) + #"{}], "password": "secret"}"#
    let bytes = Data(document.utf8)
    return stride(from: 0, to: bytes.count, by: 1 << 20).map { bytes[$0..<min($0 + (1 << 20), bytes.count)] }
}()
let jsonBytes = Double(jsonPieces.reduce(0) { $0 + $1.count })
let hashStart = clock.now
let digest = BenchmarkProbes.sha256(of: jsonPieces)
let hashTime = seconds(hashStart.duration(to: clock.now))
let redactStart = clock.now
let redactedBytes = try BenchmarkProbes.redactJSON(jsonPieces)
let redactTime = seconds(redactStart.duration(to: clock.now))

print("Tapedeck connector benchmark (\(requests) requests each, release build)")
print(String(format: "  replay, 10 interactions:        %8.2f µs/request  (baseline, 1.00)", smallTime))
print(String(format: "  replay, 100,000 interactions:   %8.2f µs/request  (%.2f × the 10-interaction cassette, same 10 requests)", largeTime, largeTime / smallTime))
print(String(format: "  same, 1,000 distinct requests:  %8.2f µs/request  (%.2f ×)", spreadTime, spreadTime / smallTime))
print(String(format: "  same 10, with an expiry age:    %8.2f µs/request  (%.2f ×)", expiryTime, expiryTime / smallTime))
print(String(format: "  load, 100,000 interactions:     %8.3f s  (%.1f MB cassette: parse %.3f s, index %.3f s)",
             seconds(loadTime), Double(largeSize) / 1e6, seconds(parseTime), seconds(loadTime - parseTime)))
print(String(format: "  answered by a recording:        %8.2f µs/request  (baseline for stubs, 1.00)", recordedTime))
print(String(format: "  answered by stub 10 of 10:      %8.2f µs/request  (%.2f × the recording, templated body)", fewStubTime, fewStubTime / recordedTime))
print(String(format: "  answered by stub 1,000 of 1,000: %7.2f µs/request  (%.2f × the recording, %.2f × 10 stubs)", stubTime, stubTime / recordedTime, stubTime / fewStubTime))
print(String(format: "  SHA-256 of 64 MiB of JSON:       %8.0f MB/s  (baseline for redaction, 1.00)", jsonBytes / hashTime / 1e6)
      + ", digest \(digest.prefix(8))…")
print(String(format: "  JSON redaction piece by piece:   %7.0f MB/s  (%.2f × the hash's time; %d bytes out)", jsonBytes / redactTime / 1e6,
             redactTime / hashTime, redactedBytes))
print("  goals: < 10 µs/request; large within 1.5 × small; load < 2 s; stubs near a recording")
