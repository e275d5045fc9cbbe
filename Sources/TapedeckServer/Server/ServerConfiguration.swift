import Foundation
import NIOCore
import TapedeckCore
import TapedeckNIO

/// Where a server listens and the limits it enforces on every connection.
package struct ServerConfiguration: Sendable {
    /// The address to bind (default 127.0.0.1).
    package var host: String
    /// The port to bind; 0 picks a free one.
    package var port: Int
    /// The largest request body accepted; larger ones get 413 (default 64 MiB).
    package var maxBodySize: Int
    /// How long a connection may stay silent, with no request in flight, before it is dropped.
    package var idleTimeout: TimeAmount
    /// How long an HTTP/1.1 connection may take to send a whole request head, from when it opened or
    /// its last answer ended (`--header-timeout`); past it the connection closes, however it trickles.
    package var headerTimeout: TimeAmount = .seconds(60)
    /// How long an answer may wait for its client to take what was written (`--send-timeout`): past
    /// it, a client that stopped reading loses its connection (an HTTP/2 stream, its stream).
    package var sendTimeout: TimeAmount = .seconds(60)
    /// How long a request body taken whole may go without a byte arriving (`--body-timeout`): past
    /// it, the request gets 408 and its connection (an HTTP/2 stream, its stream) closes.
    package var bodyTimeout: TimeAmount = .seconds(60)
    /// How long stopping waits for the answers under way before it closes what is left.
    package var drainTimeout: TimeAmount = .seconds(10)
    /// The largest WebSocket message (fragments joined) either server takes; a larger one closes its socket with 1009.
    package var maxMessageSize = 16 << 20
    /// The most bytes of unfinished WebSocket messages (fragments not yet joined) all of the
    /// server's connections together hold (`--max-websocket-buffer`, default four messages of the
    /// default size); a fragment past it closes its socket with 1009.
    package var maxWebSocketBuffer: Int {
        get { webSocketBuffers.limit }
        set { webSocketBuffers = WebSocketBufferBudget(limit: newValue) }
    }
    /// The account of ``maxWebSocketBuffer``, shared by every copy of this configuration: one per server.
    package private(set) var webSocketBuffers = WebSocketBufferBudget(limit: 64 << 20)
    /// The status of an unmatched request (default 599).
    package var unmatchedStatus: Int
    /// The folder `Tapedeck-Cassette: NAME` loads `NAME.json` from, if any.
    package var cassetteDirectory: URL?
    /// How many journal entries the admin API keeps.
    package var journalCapacity: Int
    /// The folder of the local certificate authority (`$TAPEDECK_HOME`).
    package var authorityHome: URL
    /// Called with each replay delay as it is scheduled: lets tests check delays without timing them
    /// (through `@testable import`; not part of the package configuration).
    var delayObserver: (@Sendable (ResponseDelay) -> Void)?
    /// Credentials every request must carry in `Proxy-Authorization` (`--proxy-auth`), if any.
    package var proxyCredentials: ProxyCredentials? = nil
    /// Names the admin API answers to besides the loopback names and ``host`` (`--admin-host`), for a
    /// server reached by another name (a container's, a load balancer's).
    package var adminHosts: [String] = []
    /// Whether `/__tapedeck/` is the admin API; when false such requests are served like any other (`--no-admin`).
    package var adminEnabled = true
    /// Request bodies larger than this many bytes are written to a file in ``uploadFolder`` as they
    /// arrive, not held in memory: the side-file threshold, past which a cassette keeps a body in a file too.
    package var uploadMemoryLimit = CassetteCodec.defaultSideFileThreshold
    /// Where request bodies past ``uploadMemoryLimit`` are kept while their exchange lasts: a folder
    /// of this server's own (`$TAPEDECK_HOME/uploads/<uuid>`), holding one folder for each upload,
    /// removed when the upload's exchange is done; ``removeUploadFolder()`` removes what is left.
    package var uploadFolder: URL {
        authorityHome.appendingPathComponent("uploads", isDirectory: true).appendingPathComponent(uploadFolderName, isDirectory: true)
    }
    private let uploadFolderName = UUID().uuidString

    /// Removes ``uploadFolder`` and whatever it still holds: for when the server and its mode have
    /// stopped, and an upload's exchange may have ended without letting go of its file.
    package func removeUploadFolder() {
        try? FileManager.default.removeItem(at: uploadFolder)
    }

    /// Creates a configuration with the documented defaults.
    package init(host: String = "127.0.0.1", port: Int = 8080, maxBodySize: Int = 64 << 20,
                idleTimeout: TimeAmount = .seconds(60), unmatchedStatus: Int = 599,
                cassetteDirectory: URL? = nil, journalCapacity: Int = 1000,
                authorityHome: URL = CertificateAuthority.defaultHome()) {
        self.host = host
        self.port = port
        self.maxBodySize = maxBodySize
        self.idleTimeout = idleTimeout
        self.unmatchedStatus = unmatchedStatus
        self.cassetteDirectory = cassetteDirectory
        self.journalCapacity = journalCapacity
        self.authorityHome = authorityHome
    }
}
