import Foundation
import Tapedeck
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One test's cassette: its own connector and playback state, opened before the test and
/// checked after it. The Swift Testing trait ``CassetteTrait`` and the XCTest helper
/// `XCTestCase.useCassette(_:)` both create one; the connector is a ``/Tapedeck/CassetteConnector`` in
/// replay mode and a ``/Tapedeck/RecordingConnector`` in the recording modes.
public final class TestCassette: Sendable {
    /// The cassette of the test running in this task, set by the `.cassette("name")` trait.
    @TaskLocal public static var current: TestCassette?

    /// The connector of the current test's cassette.
    ///
    /// - Throws: ``TestCassetteMissingTrait`` when the test has no `.cassette(...)` trait.
    public static func connector() throws -> any HTTPConnector {
        guard let current else { throw TestCassetteMissingTrait() }
        return current.connector
    }

    /// Where the cassette is.
    public let location: CassetteLocation
    /// The mode in force, after `TAPEDECK_MODE`.
    public let mode: RecordMode
    /// The connector to inject into the code under test.
    public let connector: any HTTPConnector

    /// Opens a cassette for a test.
    ///
    /// - Parameters:
    ///   - location: the cassette file.
    ///   - mode: used unless `TAPEDECK_MODE` in `environment` names another; `replay` by default.
    ///   - options: matching, exhaustion, latency, secrets and expiry.
    ///   - hooks: custom match rules, `beforePlayback` and `beforeRecord`.
    ///   - stubs: answers for what the cassette does not hold; with stubs, a missing cassette in
    ///     replay mode is not an error (the test runs on stubs alone).
    ///   - redaction: what recording masks before writing; credentials by default.
    ///   - live: where requests go when recording; by default a new ephemeral `URLSessionConnector`.
    ///   - environment: where `TAPEDECK_MODE` is read.
    ///   - test: the test's name, used in the message for a missing cassette.
    public init(location: CassetteLocation, mode: RecordMode = .replay, options: PlaybackOptions = PlaybackOptions(),
                hooks: PlaybackHooks = PlaybackHooks(), stubs: [Stub] = [], redaction: RedactionRules = .defaults,
                live: (any HTTPConnector)? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment, test: String? = nil) throws(TestCassetteError) {
        let resolved: RecordMode
        do {
            resolved = try RecordMode.fromEnvironment(environment, default: mode)
        } catch {
            throw .invalidMode(error)
        }
        let exists = FileManager.default.fileExists(atPath: location.file.path)
        self.location = location
        self.mode = resolved
        do {
            if resolved.records(cassetteExists: exists) {
                connector = try RecordingConnector(live: live ?? URLSessionConnector(), cassette: location.file, mode: resolved,
                                                   redaction: redaction, options: options, hooks: hooks, stubs: stubs,
                                                   environment: [:])
            } else if exists {
                // Nothing will be recorded: replay, so that unplayed interactions can be reported.
                connector = try CassetteConnector(cassette: location.file, options: options, hooks: hooks, stubs: stubs)
            } else if !stubs.isEmpty {
                connector = CassetteConnector(stubs: stubs, options: options, hooks: hooks)
            } else {
                throw TestCassetteError.missing(name: location.name, file: location.file.path, test: test)
            }
        } catch let error as TestCassetteError {
            throw error
        } catch let error as CassetteError {
            throw .invalid(error)
        } catch {
            throw .invalid(CassetteError(file: location.file.path, kind: .io("\(error)")))
        }
    }

    /// A URLSession configuration answered by this cassette (through `ConnectorURLProtocol`).
    public func urlSessionConfiguration(base: URLSessionConfiguration = .ephemeral) -> URLSessionConfiguration {
        .replaying(connector, base: base)
    }

    /// The recorded interactions this test has not played, as `#index METHOD URL`; empty when recording.
    public func unplayedInteractions() -> [String] {
        guard let replaying = connector as? CassetteConnector else { return [] }
        let played = Set(replaying.player.playedCounts().map(\.index))
        return replaying.player.interactions.enumerated()
            .filter { !played.contains($0.offset) }
            .map { "#\($0.offset) \($0.element.request.method) \($0.element.request.url)" }
    }

    /// Saves what was recorded and, with `requireAllPlayed`, fails when interactions were never played.
    public func finish(requireAllPlayed: Bool = false) throws(TestCassetteError) {
        if let recording = connector as? RecordingConnector {
            do {
                try recording.finish()
            } catch let error as CassetteError {
                throw .notSaved(error)
            } catch {
                throw .notSaved(CassetteError(file: location.file.path, kind: .io("\(error)")))
            }
        }
        let unplayed = unplayedInteractions()
        if requireAllPlayed && !unplayed.isEmpty {
            throw .unplayed(name: location.name, interactions: unplayed)
        }
    }
}
