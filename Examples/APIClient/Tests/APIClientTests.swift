import ExampleAPIClient
import Foundation
import Tapedeck
import TapedeckTesting
import Testing

/// The example client, run entirely from cassettes (recorded by `Examples/APIClient/record_cassettes.py`).
@Suite struct APIClientTests {
    /// The cassettes, copied into the test bundle; `TAPEDECK_CASSETTE_DIR` points elsewhere when recording.
    static let cassettes = CassetteLocation.directory(in: .module)!
    /// What the refresh token looks like in a cassette: recording redacts it.
    static let redaction = RedactionRules.defaults.adding(queryParameters: ["refresh_token"])

    func client(accessToken: String = "token-1") throws -> APIClient {
        let baseURL = ProcessInfo.processInfo.environment["EXAMPLE_API_BASE_URL"] ?? "http://api.example.test"
        return APIClient(baseURL: URL(string: baseURL)!, connector: try TestCassette.connector(),
                         credentials: Credentials(accessToken: accessToken, refreshToken: "refresh-1"))
    }

    @Test(.cassette("users-core", directory: cassettes, redaction: redaction, requireAllPlayed: true))
    func jsonGetListsTheUsersOfATeam() async throws {
        let users = try await client().users(team: "core")
        #expect(users.map(\.name) == ["Ada", "Grace"])
    }

    @Test(.cassette("users-unknown-team", directory: cassettes, redaction: redaction, requireAllPlayed: true))
    func notFoundIsAnEmptyList() async throws {
        #expect(try await client().users(team: "nobody").isEmpty)
    }

    @Test(.cassette("create-user", directory: cassettes, redaction: redaction, requireAllPlayed: true))
    func formPostCreatesAUser() async throws {
        let user = try await client().createUser(name: "Linus Pauling", email: "linus@example.test")
        #expect(user == User(id: 3, name: "Linus Pauling", email: "linus@example.test"))
    }

    @Test(.cassette("upload-avatar", directory: cassettes, redaction: redaction, requireAllPlayed: true))
    func multipartUploadReturnsTheReceipt() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0x2A, count: 56))
        let receipt = try await client().uploadAvatar(fileName: "ada.png", png: png, description: "Ada at work")
        #expect(receipt == UploadReceipt(fileName: "ada.png", size: 64, description: "Ada at work"))
    }

    @Test(.cassette("download-report", directory: cassettes, redaction: redaction, requireAllPlayed: true))
    func downloadWritesTheReportToAFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: file) }
        let written = try await client().downloadReport(year: 2026, to: file)
        #expect(written == file)
        #expect(try String(contentsOf: file, encoding: .utf8) == "month,visits\n2026-01,120\n2026-02,98\n")
    }

    @Test(.cassette("refresh-token", directory: cassettes, redaction: redaction, requireAllPlayed: true))
    func unauthorizedRefreshesTheTokenAndRetries() async throws {
        let client = try client(accessToken: "expired-token")
        let me = try await client.me()
        #expect(me.name == "Ada")
        #expect(client.credentials.accessToken != "expired-token")
        // All three recorded exchanges were played: 401, the token refresh, the retried call.
        #expect(TestCassette.current?.unplayedInteractions() == [])
    }
}
