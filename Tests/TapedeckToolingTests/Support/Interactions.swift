import Foundation
import TapedeckCore

/// Small interactions for tests that need a specific shape.
enum Interactions {
    /// A GET with a text answer and timing.
    static func get(_ url: String, answer: String, status: Int = 200, headers: HeaderList = [:],
                    responseHeaders: HeaderList = ["Content-Type": "text/plain"], timed: Bool = true) -> Interaction {
        Interaction(recordedAt: "2026-11-21T10:00:00.000Z",
                    request: CassetteRequest(method: "GET", url: url, headers: headers),
                    response: CassetteResponse(status: status, headers: responseHeaders, body: Body(text: answer)),
                    timing: timed ? Timing(firstByteMs: 4, totalMs: 5) : nil)
    }

    /// A JSON POST.
    static func postJSON(_ url: String, body: String, answer: String = "{\"ok\":true}") -> Interaction {
        Interaction(recordedAt: "2026-11-21T10:00:00.000Z",
                    request: CassetteRequest(method: "POST", url: url, headers: ["Content-Type": "application/json"],
                                             body: Body(text: body)),
                    response: CassetteResponse(status: 200, headers: ["Content-Type": "application/json"], body: Body(text: answer)),
                    timing: Timing(firstByteMs: 1, totalMs: 2))
    }

    /// Writes a cassette with the core codec and returns its URL.
    @discardableResult
    static func write(_ interactions: [Interaction], to folder: URL, name: String = "cassette.json") throws -> URL {
        let url = folder.appendingPathComponent(name)
        try CassetteCodec().save(Cassette(meta: CassetteMeta(createdAt: "2026-11-21T10:00:00.000Z", recordedWith: "test"),
                                          interactions: interactions), to: url)
        return url
    }
}
