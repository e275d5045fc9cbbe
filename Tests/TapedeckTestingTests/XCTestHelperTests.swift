#if canImport(XCTest)
import Foundation
import HTTPTypes
import Tapedeck
import TapedeckTesting
import XCTest

/// The XCTest helper: a cassette per test, checked at teardown.
final class XCTestHelperTests: XCTestCase {
    func testUseCassetteReplaysWithItsOwnPlaybackState() async throws {
        let cassette = try useCassette("example", directory: sharedCassettes, options: playOnce, requireAllPlayed: false)
        let (response, data) = try await cassette.connector.send(image(), body: nil)
        XCTAssertEqual(response.status.code, 200)
        XCTAssertEqual(data.prefix(4), Data([0x89, 0x50, 0x4E, 0x47]))
        let other = try useCassette("example", directory: sharedCassettes, options: playOnce)
        let (again, _) = try await other.connector.send(image(), body: nil)
        XCTAssertEqual(again.status.code, 200)
    }

    func testUseCassetteThrowsForAMissingCassetteWithTheRecordCommand() {
        XCTAssertThrowsError(try useCassette("no-such-cassette", directory: sharedCassettes)) { error in
            XCTAssertTrue("\(error)".contains("TAPEDECK_MODE=record swift test"), "\(error)")
        }
    }
}
#endif
