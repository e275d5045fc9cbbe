#if canImport(XCTest)
import Foundation
import XCTest
import Tapedeck

extension XCTestCase {
    /// Opens this test's own cassette; after the test it is saved and, with `requireAllPlayed`,
    /// checked for interactions never played (an XCTest failure).
    ///
    /// ```swift
    /// func testListsUsers() async throws {
    ///     let cassette = try useCassette("users")
    ///     let client = APIClient(connector: cassette.connector)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: the cassette: the file `<directory>/<name>.json`.
    ///   - directory: `cassettes/` beside the test file by default; `TAPEDECK_CASSETTE_DIR` wins over it.
    ///   - mode: `replay` unless `TAPEDECK_MODE` says otherwise.
    ///   - options: matching, exhaustion, latency, secrets and expiry.
    ///   - hooks: custom match rules, `beforePlayback` and `beforeRecord`.
    ///   - stubs: answers for what the cassette does not hold; with stubs the cassette file may be missing.
    ///   - redaction: what recording masks before writing; credentials by default.
    ///   - requireAllPlayed: fail the test when recorded interactions were never played.
    ///   - filePath: the test's source file, for the default directory; leave the default.
    ///   - line: where a failure at teardown is reported; leave the default.
    /// - Throws: ``TestCassetteError``, e.g. a missing cassette in replay mode, with how to record it.
    public func useCassette(_ name: String, directory: URL? = nil, mode: RecordMode = .replay,
                            options: PlaybackOptions = PlaybackOptions(), hooks: PlaybackHooks = PlaybackHooks(),
                            stubs: [Stub] = [], redaction: RedactionRules = .defaults, requireAllPlayed: Bool = false,
                            filePath: StaticString = #filePath, line: UInt = #line) throws -> TestCassette {
        let location = try CassetteLocation(name: name, directory: directory, filePath: "\(filePath)")
        let cassette = try TestCassette(location: location, mode: mode, options: options, hooks: hooks, stubs: stubs,
                                        redaction: redaction,
                                        test: testMethodName)
        addTeardownBlock {
            do {
                try cassette.finish(requireAllPlayed: requireAllPlayed)
            } catch {
                XCTFail("\(error)", file: filePath, line: line)
            }
        }
        return cassette
    }

    /// `testFoo` from `Class.testFoo` (Linux) or `-[Class testFoo]` (Darwin), for `swift test --filter`.
    private var testMethodName: String {
        let last = name.split(whereSeparator: { $0 == "." || $0 == " " }).last ?? Substring(name)
        return String(last.filter { $0 != "]" })
    }
}
#endif
