import Foundation
import Testing
@testable import TapedeckCore
import TapedeckTestSupport

/// Runs the shipped JSON Schema validator (Python's `jsonschema`) over cassettes.
@Suite("JSON Schema")
struct SchemaTests {
    func validate(_ paths: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"),
                             ["python3", repositoryRoot.appendingPathComponent("scripts/validate_cassettes.py").path] + paths)
    }

    @Test("every cassette under cassettes/ is valid against the schema", .requires(.jsonschema))
    func shippedCassettes() throws {
        let result = try validate([repositoryRoot.appendingPathComponent("cassettes").path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ok "))
    }

    @Test("the schema rejects broken cassettes (its self-test)", .requires(.jsonschema))
    func schemaSelfTest() throws {
        let result = try validate(["--self-test"])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test("what Tapedeck writes is valid against the schema, every body form included", .requires(.jsonschema))
    func writtenCassette() throws {
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("written.json")
        let json: HeaderList = ["Content-Type": "application/json"]
        let written = cassette([
            Interaction(recordedAt: "2026-11-21T10:00:00.123Z",
                        request: request("POST", "https://api.example.test/a?x=1", headers: json, body: #"{"a":1}"#),
                        response: CassetteResponse(status: 201, headers: ["Content-Encoding": "gzip"], body: Body(text: "ok")),
                        timing: Timing(firstByteMs: 1.5, totalMs: 2)),
            Interaction(recordedAt: "2026-11-21T10:00:01.000Z", request: request("GET", "/bin"),
                        response: CassetteResponse(status: 200, body: Body(Data(repeating: 0xFF, count: 2048))), delayMs: 3),
            Interaction(recordedAt: "2026-11-21T10:00:02.000Z", request: request("GET", "/b64"),
                        response: CassetteResponse(status: 200, body: Body(Data([0xFF, 0xFE])))),
            Interaction(recordedAt: "2026-11-21T10:00:03.000Z", request: request("GET", "/json"),
                        response: CassetteResponse(status: 200, body: Body(Data(#"{"b":[1]}"#.utf8), style: .json))),
            Interaction(recordedAt: "2026-11-21T10:00:04.000Z", request: request("GET", "/events"),
                        response: CassetteResponse(status: 200, headers: ["Content-Type": "text/event-stream"]),
                        chunks: [StreamChunk(atMs: 0, data: Data("data: a\n\n".utf8)), StreamChunk(atMs: 5, data: Data([0xFF]))]),
            Interaction(recordedAt: "2026-11-21T10:00:05.000Z", request: request("POST", "/demo.Greeter/SayHello"),
                        response: CassetteResponse(status: 200, body: Body(Data([0, 0, 0, 0, 2, 0x0A, 0x00]), style: .grpc),
                                                   trailers: ["grpc-status": "0"]),
                        httpVersion: "2"),
        ])
        try CassetteCodec(sideFileThreshold: 1024).save(written, to: file)
        let result = try validate([file.path])
        #expect(result.status == 0, "\(result.output)")
    }
}
