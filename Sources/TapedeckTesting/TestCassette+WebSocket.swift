import Tapedeck

extension TestCassette {
    /// A WebSocket connector on this test's cassette, for the `.cassette(...)` trait and the
    /// XCTest helper alike: in replay mode it plays the cassette with the test's own playback
    /// state (so `requireAllPlayed` counts conversations too); in the recording modes it records
    /// through `live` into the same cassette, saved when the test finishes. `live` is built only
    /// when recording.
    ///
    /// ```swift
    /// @Test(.cassette("chat")) func joins() async throws {
    ///     let chat = ChatClient(webSocket: try TestCassette.webSocketConnector(live: URLSessionWebSocketConnector()))
    ///     ...
    /// }
    /// ```
    public func webSocketConnector(live: @autoclosure () throws -> any WebSocketConnector) rethrows -> any WebSocketConnector {
        if let recording = connector as? RecordingConnector {
            return RecordingWebSocketConnector(live: try live(), recorder: recording.recorder)
        }
        guard let replaying = connector as? CassetteConnector else { return try live() }
        return CassetteWebSocketConnector(player: replaying.player)
    }

    /// ``webSocketConnector(live:)`` on the current test's cassette.
    ///
    /// - Throws: ``TestCassetteMissingTrait`` when the test has no `.cassette(...)` trait.
    public static func webSocketConnector(live: @autoclosure () throws -> any WebSocketConnector) throws -> any WebSocketConnector {
        guard let current else { throw TestCassetteMissingTrait() }
        return try current.webSocketConnector(live: try live())
    }
}
