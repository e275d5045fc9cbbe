import ArgumentParser
import Foundation
import TapedeckServer

/// The safety options `tapedeck replay` and `tapedeck record` share: proxy authentication and the admin switch.
struct ServerSafetyOptions: ParsableArguments {
    @Option(help: "Require Proxy-Authorization: Basic with these credentials on every request (USER:PASSWORD); others get 407.")
    var proxyAuth: String?

    @Flag(help: "Turn the /__tapedeck/ admin endpoints off; such requests are then served like any other.")
    var noAdmin = false

    /// Applies the options to a configuration; a malformed `--proxy-auth` throws.
    func apply(to configuration: inout ServerConfiguration) throws(ProxyCredentialsError) {
        if let proxyAuth { configuration.proxyCredentials = try ProxyCredentials(parsing: proxyAuth) }
        configuration.adminEnabled = !noAdmin
    }

    /// Prints the warning for a bind address beyond loopback.
    static func warnIfExposed(host: String, command: String) {
        if let warning = BindAddress.warning(host: host, command: command) {
            FileHandle.standardError.write(Data((warning + "\n").utf8))
        }
    }
}
