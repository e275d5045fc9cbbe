import NIOCore

/// Serves a connection the caller owns (an `EmbeddedChannel` in the fuzz targets) with exactly
/// the handlers a listening server installs on each accepted connection.
package enum ConnectionServing {
    /// Installs the server's handlers on a channel; call it on the channel's event loop.
    package static func configure(_ channel: any Channel, mode: any Mode, configuration: ServerConfiguration) throws {
        try ServerPipeline.configure(channel: channel, front: FrontDoor(mode: mode), configuration: configuration)
    }
}
