import ArgumentParser
import Foundation
import TapedeckServer

/// `tapedeck ca`: the local certificate authority used for TLS interception.
struct CACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Manage the local CA that intercepts HTTPS.",
        discussion: """
        The CA lives in $TAPEDECK_HOME (default ~/.tapedeck): ca.pem and ca-key.pem, the key \
        readable by its owner only. It is created on first need; leaf certificates are minted \
        per host, kept in memory and valid for 7 days.

        Example:
          curl --cacert "$(tapedeck ca path)" -x 127.0.0.1:8080 https://example.com/
        """,
        subcommands: [Init.self, Path.self, Export.self],
        defaultSubcommand: Path.self)

    /// `tapedeck ca init`: create the CA if missing and say where it is.
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create the CA if it does not exist yet.", discussion: """
            Example:
              tapedeck ca init
            """)

        func run() throws {
            let authority = CertificateAuthority(home: CertificateAuthority.defaultHome())
            let created = try CACommand.perform { try authority.initialize() }
            FileHandleOutput.standardOutput(created ? "created \(authority.certificateFile.path)" : "exists \(authority.certificateFile.path)")
        }
    }

    /// `tapedeck ca path`: print the CA certificate's path, creating it if needed.
    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the path of the CA certificate (for --cacert).", discussion: """
            Example:
              tapedeck ca path
            """)

        func run() throws {
            let authority = CertificateAuthority(home: CertificateAuthority.defaultHome())
            _ = try CACommand.perform { try authority.initialize() }
            FileHandleOutput.standardOutput(authority.certificateFile.path)
        }
    }

    /// `tapedeck ca export`: print the CA certificate in PEM.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the CA certificate in PEM.", discussion: """
            Example:
              tapedeck ca export > tapedeck-ca.pem
            """)

        func run() throws {
            let authority = CertificateAuthority(home: CertificateAuthority.defaultHome())
            let pem = try CACommand.perform { try authority.certificatePEM() }
            FileHandleOutput.standardOutput(pem)
        }
    }

    /// Runs a CA operation, turning its error into a message and exit status 1.
    static func perform<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch {
            Diagnostic.error("\(error)")
            throw ExitCode(1)
        }
    }
}
