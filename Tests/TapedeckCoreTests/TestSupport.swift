import Foundation
import TapedeckTestSupport
@testable import TapedeckCore

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// A fresh empty folder in this run's test folder (``TestFiles/folder``), removed when the run ends.
func makeTemporaryDirectory() throws -> URL {
    let url = TestFiles.folder.appendingPathComponent("tapedeck-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A request with a body given as text.
func request(_ method: String, _ url: String, headers: HeaderList = [:], body: String? = nil) -> CassetteRequest {
    CassetteRequest(method: method, url: url, headers: headers, body: body.map { Body(text: $0) } ?? .empty)
}

/// An interaction answering `request` with a status and a text body.
func interaction(_ request: CassetteRequest, status: Int = 200, body: String = "",
                 headers: HeaderList = ["Content-Type": "text/plain"], timing: Timing? = nil) -> Interaction {
    Interaction(recordedAt: "2026-11-21T10:00:00.000Z", request: request,
                response: CassetteResponse(status: status, headers: headers, body: Body(text: body)), timing: timing)
}

/// A cassette of interactions.
func cassette(_ interactions: [Interaction]) -> Cassette {
    Cassette(meta: CassetteMeta(createdAt: "2026-11-21T10:00:00Z", recordedWith: "tests"), interactions: interactions)
}

extension PlaybackResult {
    /// The served interaction's response body as text, or nil on a miss.
    var servedText: String? {
        guard case .played(let playback) = self else { return nil }
        return playback.interaction.response.body.text
    }

    /// The diagnosis of a miss, or nil when served.
    var diagnosis: MatchDiagnosis? {
        guard case .unmatched(let diagnosis) = self else { return nil }
        return diagnosis
    }
}
