import Foundation
import HTTPTypes
import Tapedeck
import Testing
@_spi(Internals) import TapedeckCore

@Suite("CassetteConnector: in-process replay")
struct CassetteConnectorTests {
    func get(_ path: String) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "http", authority: "api.example.test", path: path)
    }

    @Test("replays the example cassette's GET with a query")
    func plainGet() async throws {
        let connector = try CassetteConnector(cassette: exampleCassette)
        let (response, data) = try await connector.send(get("/plaintext?name=Shawn"), body: nil)
        #expect(response.status == .ok)
        #expect(String(decoding: data, as: UTF8.self) == "Hello Shawn!")
    }

    @Test("a form POST matches with its fields in another order")
    func formPost() async throws {
        let connector = try CassetteConnector(cassette: exampleCassette)
        var request = HTTPRequest(method: .post, scheme: "http", authority: "api.example.test", path: "/postName")
        request.headerFields[.contentType] = "application/x-www-form-urlencoded; charset=utf-8"
        let (response, data) = try await connector.send(request, body: Data("sex=1&name=Shawn".utf8))
        #expect(response.status == .ok)
        #expect(String(decoding: data, as: UTF8.self).contains("Hi Shawn"))
    }

    @Test("a gzip body arrives decoded, without Content-Encoding, as URLSession hands it over")
    func gzipDecoded() async throws {
        let connector = try CassetteConnector(cassette: exampleCassette)
        let (response, data) = try await connector.send(get("/gzip-json"), body: nil)
        #expect(response.headerFields[.contentEncoding] == nil)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["compressed"] as? Bool == true)
    }

    @Test("a body kept in a side file is read from it when served, gzip-recorded ones decoded")
    func sideFileBody() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let large = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
        var response = CassetteResponse(status: 200, body: Body(large))
        response.headers.set(name: "Content-Encoding", value: "gzip")
        let file = directory.appendingPathComponent("large.json")
        try CassetteCodec().save(Cassette(interactions: [
            Interaction(request: CassetteRequest(method: "GET", url: "http://api.example.test/large"), response: response),
        ]), to: file)
        let connector = try CassetteConnector(cassette: file)
        let (answer, data) = try await connector.send(get("/large"), body: nil)
        #expect(answer.status == .ok)
        #expect(answer.headerFields[.contentEncoding] == nil)
        #expect(data == large)
    }

    @Test("binary bodies arrive byte for byte; a 404 arrives as recorded")
    func binaryAnd404() async throws {
        let connector = try CassetteConnector(cassette: exampleCassette)
        let (image, png) = try await connector.send(get("/image.png"), body: nil)
        #expect(image.headerFields[.contentType] == "image/png")
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let (missing, _) = try await connector.send(get("/users?team=empty"), body: nil)
        #expect(missing.status.code == 404)
    }

    @Test("a request for another host is a miss with the server's diagnosis")
    func missDiagnosis() async throws {
        let connector = try CassetteConnector(cassette: exampleCassette)
        let request = HTTPRequest(method: .get, scheme: "http", authority: "api.example.test", path: "/plaintext?name=Sean")
        let error = try await #require(throws: UnmatchedRequestError.self) { try await connector.send(request, body: nil) }
        #expect(error.diagnosis.reason == .noMatch)
        #expect(error.diagnosis.nearest.first?.index == 0)
        #expect(error.description.contains("query: recorded has name=Shawn that the request lacks"))
        #expect(error.description.contains("cassettes searched: \(exampleCassette.path)"))
    }

    @Test("concurrent sends on one connector never play an interaction twice under error")
    func concurrentSends() async throws {
        let interactions = (0..<20).map { number in
            Interaction(request: CassetteRequest(method: "GET", url: "http://api.example.test/jobs"),
                        response: CassetteResponse(status: 200, body: Body(text: "job \(number)")))
        }
        let connector = CassetteConnector(cassette: Cassette(interactions: interactions),
                                          options: PlaybackOptions(exhaustion: .error))
        let bodies = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<60 {
                group.addTask { (try? await connector.send(self.get("/jobs"), body: nil)).map { String(decoding: $0.1, as: UTF8.self) } }
            }
            return await group.reduce(into: [String]()) { if let body = $1 { $0.append(body) } }
        }
        #expect(bodies.count == 20)
        #expect(Set(bodies) == Set((0..<20).map { "job \($0)" }))
    }

    @Test("latency waits on the injected clock: recorded times, without sleeping")
    func latencyOnClock() async throws {
        let interaction = Interaction(request: CassetteRequest(method: "GET", url: "/slow"),
                                      response: CassetteResponse(status: 200), timing: Timing(firstByteMs: 120, totalMs: 250))
        let clock = RecordingClock()
        let connector = CassetteConnector(cassette: Cassette(interactions: [interaction]),
                                          options: PlaybackOptions(latency: LatencyModel(.scale(2))), clock: clock)
        _ = try await connector.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/slow"), body: nil)
        #expect(clock.sleeps == [.milliseconds(500)])
    }

    @Test("the completion-handler form completes once, and cancel() delivers CancellationError")
    func completionAndCancel() async throws {
        let connector = try CassetteConnector(cassette: exampleCassette)
        let result = Locked<String?>(nil)
        let task = connector.execute(request: get("/plaintext?name=Shawn")) { outcome in
            result.withLock { $0 = (try? outcome.get()).map { String(decoding: $0.1, as: UTF8.self) } }
        }
        await task.wait()
        #expect(result.withLock { $0 } == "Hello Shawn!")

        let slow = CassetteConnector(cassette: Cassette(interactions: [
            Interaction(request: CassetteRequest(method: "GET", url: "/slow"), response: CassetteResponse(status: 200), delayMs: 60_000),
        ]), clock: RealClock())
        let cancelled = Locked<(any Error)?>(nil)
        let calls = Locked(0)
        let pending = slow.execute(request: HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/slow")) { outcome in
            calls.withLock { $0 += 1 }
            if case .failure(let error) = outcome { cancelled.withLock { $0 = error } }
        }
        pending.cancel()
        await pending.wait()
        #expect(calls.withLock { $0 } == 1)
        #expect(cancelled.withLock { $0 } is CancellationError)
    }
}
