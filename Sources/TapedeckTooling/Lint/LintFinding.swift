import Foundation

/// One thing `tapedeck lint` found in a cassette: where, how serious, and what.
package struct LintFinding: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious a finding is.
    package enum Severity: String, Sendable, Hashable, Codable {
        /// The cassette cannot be used (exit status 1).
        case error
        /// The cassette works but something looks wrong (exit status 1 with `--strict`).
        case warning
    }

    /// What kind of problem it is.
    package enum Kind: String, Sendable, Hashable, Codable {
        /// The file does not parse as a cassette.
        case schema
        /// A value that looks like a credential is stored in clear.
        case secret
        /// An interaction that adds nothing or can never be served.
        case duplicate
        /// An interaction without recorded timing.
        case timing
        /// Something else that replay would not do as the file suggests.
        case content
        /// A stub whose template names something its pattern does not capture, or reads a value
        /// a matching request may lack.
        case stub
        /// An interaction older than the expiry age.
        case expired
    }

    /// How serious it is.
    package var severity: Severity
    /// What kind it is.
    package var kind: Kind
    /// The cassette file.
    package var file: String
    /// The place: `interactions[3].request.headers.Authorization`, or `line 4, column 7`.
    package var place: String
    /// What is wrong, and what to do.
    package var message: String

    /// Creates a finding.
    package init(severity: Severity, kind: Kind, file: String, place: String, message: String) {
        self.severity = severity
        self.kind = kind
        self.file = file
        self.place = place
        self.message = message
    }

    /// `FILE: warning: PLACE: message`.
    package var description: String {
        "\(file): \(severity.rawValue): \(place.isEmpty ? "" : "\(place): ")\(message)"
    }
}
