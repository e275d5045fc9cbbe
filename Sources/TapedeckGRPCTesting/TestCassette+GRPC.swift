import GRPCCore
import Tapedeck
import TapedeckGRPC
import TapedeckTesting

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension TestCassette {
    /// A gRPC transport on this test's cassette, for the `.cassette(...)` trait and the XCTest
    /// helper alike: in replay mode it plays the cassette with the test's own playback state (so
    /// `requireAllPlayed` counts gRPC calls too); in the recording modes it records through `live`
    /// into the same cassette, saved when the test finishes. `live` is built only when recording.
    ///
    /// ```swift
    /// @Test(.cassette("greeter")) func greets() async throws {
    ///     let transport = try TestCassette.grpcTransport(live: HTTP2ClientTransport.Posix(...))
    ///     try await withGRPCClient(transport: transport) { client in ... }
    /// }
    /// ```
    public func grpcTransport<Live: ClientTransport>(live: @autoclosure () throws -> Live) rethrows -> any ClientTransport {
        if let recording = connector as? RecordingConnector {
            return RecordingGRPCTransport(live: try live(), recorder: recording.recorder)
        }
        guard let replaying = connector as? CassetteConnector else { return try live() }
        return CassetteGRPCTransport(player: replaying.player)
    }

    /// ``grpcTransport(live:)`` on the current test's cassette.
    ///
    /// - Throws: ``TestCassetteMissingTrait`` when the test has no `.cassette(...)` trait.
    public static func grpcTransport<Live: ClientTransport>(live: @autoclosure () throws -> Live) throws -> any ClientTransport {
        guard let current else { throw TestCassetteMissingTrait() }
        return try current.grpcTransport(live: try live())
    }
}
