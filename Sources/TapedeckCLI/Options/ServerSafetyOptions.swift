import ArgumentParser
import Foundation
import TapedeckServer

/// The safety options `tapedeck replay` and `tapedeck record` share: proxy authentication, the
/// names the admin API answers to, and the admin switch.
struct ServerSafetyOptions: ParsableArguments {
    /// The environment variable that may hold `USER:PASSWORD` in place of `--proxy-auth`.
    static let credentialsVariable = "TAPEDECK_PROXY_AUTH"

    // A string checked in validate() rather than an ExpressibleByArgument value: the parser's
    // error for a bad value would echo it, and this one holds a password.
    @Option(help: ArgumentHelp("Require Proxy-Authorization: Basic with these credentials on every request; others get 407. "
                               + "The /__tapedeck/ admin paths (the inspector page) also take them as Authorization: Basic, asked with 401. "
                               + "A command line is visible to every user of the machine (ps): prefer \(credentialsVariable) or --proxy-auth-file.",
                               valueName: "USER:PASSWORD"))
    var proxyAuth: String?

    @Option(help: ArgumentHelp("Read the --proxy-auth credentials from the first line of this file.", valueName: "FILE"))
    var proxyAuthFile: String?

    @Option(name: .customLong("admin-host"),
            help: ArgumentHelp("Also answer the /__tapedeck/ admin paths for this host name (repeatable); the loopback names and --host always are.",
                               valueName: "NAME"))
    var adminHosts: [String] = []

    @Flag(help: "Turn the /__tapedeck/ admin endpoints off; such requests are then served like any other.")
    var noAdmin = false

    func validate() throws {
        if proxyAuth != nil && proxyAuthFile != nil { throw ValidationError("give --proxy-auth or --proxy-auth-file, not both") }
        _ = try credentials()
    }

    /// The proxy credentials: from `--proxy-auth`, else `--proxy-auth-file`, else `TAPEDECK_PROXY_AUTH`; nil when none is given.
    func credentials(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProxyCredentials? {
        let (text, source): (String, String)
        if let proxyAuth {
            (text, source) = (proxyAuth, "--proxy-auth")
        } else if let proxyAuthFile {
            guard let contents = try? String(contentsOfFile: proxyAuthFile, encoding: .utf8) else {
                throw ValidationError("--proxy-auth-file: cannot read \(proxyAuthFile)")
            }
            (text, source) = (String(contents.split(whereSeparator: \.isNewline).first ?? ""), "--proxy-auth-file \(proxyAuthFile)")
        } else if let variable = environment[Self.credentialsVariable], !variable.isEmpty {
            (text, source) = (variable, Self.credentialsVariable)
        } else {
            return nil
        }
        do { return try ProxyCredentials(parsing: text) } catch { throw ValidationError("\(source): \(error)") }
    }

    /// Applies the options to a configuration (after ``validate()`` passed).
    func apply(to configuration: inout ServerConfiguration) {
        configuration.proxyCredentials = try? credentials()
        configuration.adminHosts = adminHosts
        configuration.adminEnabled = !noAdmin
    }
}
