import ArgumentParser
import TapedeckTooling

/// The redaction options of the cassette tools, spelled as `tapedeck record` spells them.
struct ToolingRedactionOptions: ParsableArguments {
    @Option(name: .customLong("redact-header"), help: ArgumentHelp("Also redact this header in requests and responses.", valueName: "NAME"))
    var headers: [String] = []

    @Option(name: .customLong("redact-query"), help: ArgumentHelp("Also redact this query parameter (and form field).", valueName: "NAME"))
    var queryParameters: [String] = []

    @Option(name: .customLong("redact-json-path"), help: ArgumentHelp("Also redact this place in JSON bodies, such as $.user.ssn or $..secret.", valueName: "PATH"))
    var jsonPaths: [String] = []

    @Flag(name: .customLong("no-default-redactions"), help: "Apply only the rules given, not the defaults (Authorization, Cookie, token, password...).")
    var noDefaults = false

    /// The settings for the tooling library.
    var settings: RedactionSettings {
        RedactionSettings(headers: headers, queryParameters: queryParameters, jsonPaths: jsonPaths, useDefaults: !noDefaults)
    }
}
