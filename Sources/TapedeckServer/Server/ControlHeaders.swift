import HTTPTypes
@_spi(Internals) import TapedeckCore

/// The `Tapedeck-*` request headers that steer the server; removed before matching and recording.
package struct ControlHeaders: Sendable, Hashable {
    /// The header naming a cassette under `--cassette-dir`.
    package static let cassette = "Tapedeck-Cassette"
    /// The header giving a client its own playback positions.
    package static let session = "Tapedeck-Session"

    /// The cassette name asked for, if any (not yet checked).
    package var cassette: String?
    /// The session, `""` when none was given.
    package var session: String

    /// Reads the control headers of a request.
    package init(_ fields: HTTPFields) {
        cassette = fields[values: Self.cassetteField].first
        session = fields[values: Self.sessionField].first ?? ""
    }

    private static let cassetteField = HTTPField.Name(cassette)!
    private static let sessionField = HTTPField.Name(session)!

    /// Whether a header name is a control header.
    package static func isControl(_ name: String) -> Bool {
        name.utf8.count > 9 && Substring(name.utf8.prefix(9)).caseInsensitiveEquals("tapedeck-")
    }

    /// Checks a cassette name: `[A-Za-z0-9._-]+` without `..`; returns why it is refused, or nil.
    package static func refusal(forCassetteName name: String) -> String? {
        if name.isEmpty { return "Tapedeck-Cassette is empty" }
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSetASCII.isAlphanumeric(scalar.value) || scalar == "." || scalar == "_" || scalar == "-")
        }
        if !allowed { return "Tapedeck-Cassette \"\(name)\" may only hold letters, digits, '.', '_' and '-'" }
        if name.contains("..") { return "Tapedeck-Cassette \"\(name)\" must not contain \"..\"" }
        return nil
    }
}

/// ASCII character tests without Foundation's character sets.
enum CharacterSetASCII {
    /// Whether a code point is an ASCII letter or digit.
    static func isAlphanumeric(_ value: UInt32) -> Bool {
        (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
    }
}
