import Foundation
import NIOPosix
import TapedeckCore
import TapedeckServer

/// Starts a recording proxy on 127.0.0.1 with a free port and a temporary `$TAPEDECK_HOME`,
/// runs a test body and always stops it, saving the cassette.
struct RecordHarness {
    let server: TapedeckServer
    let responder: RecordResponder
    let authorityHome: URL

    var base: String { server.url }

    /// Runs `body` with a recording proxy.
    static func run<T>(settings: RecordSettings, configure: (inout ServerConfiguration) -> Void = { _ in },
                       _ body: (RecordHarness) async throws -> T) async throws -> T {
        let home = try Fixtures.temporaryDirectory()
        var configuration = ServerConfiguration(port: 0, authorityHome: home)
        configure(&configuration)
        let responder = try RecordResponder(settings: settings, configuration: configuration,
                                            authority: CertificateAuthority(home: home),
                                            onError: { message in print("RECORD-ERROR \(message)") })
        let server = try await TapedeckServer.start(configuration: configuration, responder: responder)
        let harness = RecordHarness(server: server, responder: responder, authorityHome: home)
        do {
            let result = try await body(harness)
            try await server.shutdown()
            try await responder.shutdown()
            try? FileManager.default.removeItem(at: home)
            return result
        } catch {
            try? await server.shutdown()
            try? await responder.shutdown()
            try? FileManager.default.removeItem(at: home)
            throw error
        }
    }

    /// Writes the local CA certificate to a file for curl --cacert.
    func authorityFile() throws -> URL {
        let file = authorityHome.appending(path: "client-ca.pem")
        try Data(responder.authority.certificatePEM().utf8).write(to: file)
        return file
    }
}
