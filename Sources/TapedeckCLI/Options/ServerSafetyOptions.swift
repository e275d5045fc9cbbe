import ArgumentParser
import Foundation
import TapedeckServer

/// The safety options `tapedeck replay` and `tapedeck record` share: proxy authentication and the admin switch.
struct ServerSafetyOptions: ParsableArguments {
    // A string checked in validate() rather than an ExpressibleByArgument value: the parser's
    // error for a bad value would echo it, and this one holds a password.
    @Option(help: ArgumentHelp("Require Proxy-Authorization: Basic with these credentials on every request; others get 407. "
                               + "The /__tapedeck/ admin paths (the inspector page) also take them as Authorization: Basic, asked with 401.",
                               valueName: "USER:PASSWORD"))
    var proxyAuth: String?

    @Flag(help: "Turn the /__tapedeck/ admin endpoints off; such requests are then served like any other.")
    var noAdmin = false

    func validate() throws {
        if let proxyAuth {
            do { _ = try ProxyCredentials(parsing: proxyAuth) } catch { throw ValidationError("--proxy-auth: \(error)") }
        }
    }

    /// Applies the options to a configuration.
    func apply(to configuration: inout ServerConfiguration) {
        configuration.proxyCredentials = proxyAuth.flatMap { try? ProxyCredentials(parsing: $0) }
        configuration.adminEnabled = !noAdmin
    }
}
