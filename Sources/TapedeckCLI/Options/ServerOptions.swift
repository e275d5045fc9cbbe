import ArgumentParser
import Foundation
import NIOCore
import TapedeckServer

/// Where a server listens and the limits of every connection: the options `tapedeck replay`
/// and `tapedeck record` share.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free one.")
    var port = 8080

    @Option(help: ArgumentHelp("Largest request body; larger ones get 413.", valueName: "BYTES"))
    var maxBody = 64 << 20

    @Option(help: ArgumentHelp("Largest WebSocket message, fragments joined; a larger one closes its socket with 1009.",
                               valueName: "BYTES"))
    var maxMessageSize = 16 << 20

    @Option(help: ArgumentHelp("Most bytes of unfinished WebSocket messages all connections together hold; "
                               + "a fragment past it closes its socket with 1009.", valueName: "BYTES"))
    var maxWebsocketBuffer = 64 << 20

    @Option(help: ArgumentHelp("How long a silent connection is kept open.", valueName: "SECONDS"))
    var idleTimeout = 60

    @Option(help: ArgumentHelp("How long an HTTP/1.1 connection may take to send a whole request head, "
                               + "from when it opened or its last answer ended.", valueName: "SECONDS"))
    var headerTimeout = 60

    @Option(help: ArgumentHelp("How long a request body may go without a byte arriving before it gets 408.",
                               valueName: "SECONDS"))
    var bodyTimeout = 60

    @Option(help: ArgumentHelp("How long a client may take nothing of its answer before its connection (an HTTP/2 "
                               + "stream: its stream) is closed.", valueName: "SECONDS"))
    var sendTimeout = 60

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535, not \(port)") }
        guard maxBody >= 0 else { throw ValidationError("--max-body must not be negative") }
        guard maxWebsocketBuffer >= 0 else { throw ValidationError("--max-websocket-buffer must not be negative") }
        guard idleTimeout > 0 else { throw ValidationError("--idle-timeout must be positive") }
        guard headerTimeout > 0 else { throw ValidationError("--header-timeout must be positive") }
        guard bodyTimeout > 0 else { throw ValidationError("--body-timeout must be positive") }
        guard sendTimeout > 0 else { throw ValidationError("--send-timeout must be positive") }
        // The frame decoder takes frames of at most 4 GiB - 1.
        guard (1...Int(UInt32.max)).contains(maxMessageSize) else {
            throw ValidationError("--max-message-size must be from 1 to \(UInt32.max) bytes, not \(maxMessageSize)")
        }
    }

    /// The configuration these options describe, with the documented defaults for the rest.
    var configuration: ServerConfiguration {
        var configuration = ServerConfiguration(host: host, port: port, maxBodySize: maxBody, idleTimeout: .seconds(Int64(idleTimeout)))
        configuration.maxMessageSize = maxMessageSize
        configuration.maxWebSocketBuffer = maxWebsocketBuffer
        configuration.headerTimeout = .seconds(Int64(headerTimeout))
        configuration.bodyTimeout = .seconds(Int64(bodyTimeout))
        configuration.sendTimeout = .seconds(Int64(sendTimeout))
        return configuration
    }

    /// Prints a warning when the server is about to listen beyond this machine.
    func warnIfExposed() {
        guard !BindAddress.isLoopback(host) else { return }
        Diagnostic.warning("--host \(host) exposes this server beyond this machine; anyone who can reach it "
                           + "can use it (consider --proxy-auth USER:PASSWORD and --no-admin)")
    }
}
