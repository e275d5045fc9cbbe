#if canImport(Testing)
import Foundation
import Testing
import Tapedeck

/// A Swift Testing trait that runs each test (each case of a parameterized test) with its
/// own ``TestCassette``: a fresh connector and playback state, reachable through
/// ``TestCassette/current`` for the test's task and every task it starts. Tests using it
/// run in parallel, also when many of them replay the same cassette file.
///
/// ```swift
/// @Test(.cassette("users")) func listsUsers() async throws {
///     let client = APIClient(connector: try TestCassette.connector())
///     #expect(try await client.users().count == 2)
/// }
/// ```
public struct CassetteTrait: TestTrait, SuiteTrait, TestScoping {
    /// The cassette's name: the file `<directory>/<name>.json`.
    public var name: String
    /// The directory; `TAPEDECK_CASSETTE_DIR` wins over it, and nil means `cassettes/` beside the test file.
    public var directory: URL?
    /// The mode unless `TAPEDECK_MODE` names another.
    public var mode: RecordMode
    /// Matching, exhaustion, latency, secrets and expiry.
    public var options: PlaybackOptions
    /// Custom match rules, `beforePlayback` and `beforeRecord`.
    public var hooks: PlaybackHooks
    /// Stubs for what the cassette does not hold (values or closures).
    public var stubs: [Stub]
    /// What recording redacts.
    public var redaction: RedactionRules
    /// Fail the test when a recorded interaction was never played.
    public var requireAllPlayed: Bool
    /// Also answer `URLSession.shared` (and what else reaches a registered URLProtocol) from the
    /// cassette, through ``/Tapedeck/SharedSessionInterception``: such tests run one at a time.
    public var sharedSession: Bool
    /// The source file of the test, for the default directory.
    public var filePath: String

    /// Applied to a suite, the trait gives each test of the suite its own cassette.
    public var isRecursive: Bool { true }

    /// Opens the cassette, runs the test with it as ``TestCassette/current``, then saves and checks it.
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        if test.isSuite { return try await function() }
        let location = try CassetteLocation(name: name, directory: directory, filePath: filePath)
        let cassette = try TestCassette(location: location, mode: mode, options: options, hooks: hooks, stubs: stubs,
                                        redaction: redaction,
                                        test: String(test.name.prefix { $0 != "(" }))
        do {
            try await TestCassette.$current.withValue(cassette) {
                if sharedSession {
                    try await SharedSessionInterception.run(with: cassette.connector) { try await function() }
                } else {
                    try await function()
                }
            }
        } catch {
            // The test's own failure comes first; still save what it recorded.
            do { try cassette.finish() } catch let saveError { Issue.record(saveError) }
            throw error
        }
        try cassette.finish(requireAllPlayed: requireAllPlayed)
    }
}

extension Trait where Self == CassetteTrait {
    /// Runs the test with its own cassette `name`; see ``CassetteTrait``.
    ///
    /// - Parameters:
    ///   - name: the cassette: the file `<directory>/<name>.json` (`.json` may be given or left out).
    ///   - directory: where cassettes are; `cassettes/` beside the test file by default; `TAPEDECK_CASSETTE_DIR` wins.
    ///   - mode: `replay` unless `TAPEDECK_MODE` says otherwise (`TAPEDECK_MODE=record` re-records).
    ///   - options: matching, exhaustion, latency, `secrets` (`<NAME>` in the cassette) and `expiry`.
    ///   - hooks: custom match rules, `beforePlayback` and `beforeRecord`.
    ///   - stubs: answers for what the cassette does not hold, as values or closures; with stubs the
    ///     cassette file may be missing.
    ///   - redaction: what recording masks before writing; credentials by default.
    ///   - requireAllPlayed: fail the test when recorded interactions were never played.
    ///   - sharedSession: also replay code that uses `URLSession.shared` with no injected session
    ///     (see ``/Tapedeck/SharedSessionInterception`` for what it reaches on each platform); such
    ///     tests run one at a time, the others stay parallel.
    ///   - filePath: the test's source file, for the default directory; leave the default.
    public static func cassette(_ name: String, directory: URL? = nil, mode: RecordMode = .replay,
                                options: PlaybackOptions = PlaybackOptions(), hooks: PlaybackHooks = PlaybackHooks(),
                                stubs: [Stub] = [], redaction: RedactionRules = .defaults, requireAllPlayed: Bool = false,
                                sharedSession: Bool = false, filePath: String = #filePath) -> Self {
        CassetteTrait(name: name, directory: directory, mode: mode, options: options, hooks: hooks, stubs: stubs, redaction: redaction,
                      requireAllPlayed: requireAllPlayed, sharedSession: sharedSession, filePath: filePath)
    }
}
#endif
