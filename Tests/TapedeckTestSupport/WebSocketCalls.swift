import Foundation

/// The command line of `scripts/ws_calls.py`, the tests' WebSocket client (Python's `websockets`),
/// with its opening-handshake bound ``Deadlines/clientCall``.
public enum WebSocketCalls {
    /// `python3 scripts/ws_calls.py URL --open-timeout S OPTIONS... STEPS...`, for `/usr/bin/env`.
    public static func arguments(_ url: String, options: [String] = [], steps: [String]) -> [String] {
        let script = ExampleUpstream.repositoryRoot.appending(path: "scripts/ws_calls.py").path
        return ["python3", script, url, "--open-timeout", "\(Deadlines.clientCall)"] + options + steps
    }
}
