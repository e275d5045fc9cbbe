import ArgumentParser
import TapedeckCore

/// The redaction options `tapedeck record` and the cassette tools share.
struct RedactionOptions: ParsableArguments {
    @Option(name: .customLong("redact-header"), help: ArgumentHelp("Also redact this header in requests and responses.", valueName: "NAME"))
    var headers: [String] = []

    @Option(name: .customLong("redact-query"), help: ArgumentHelp("Also redact this query parameter (and form field).", valueName: "NAME"))
    var queryParameters: [String] = []

    @Option(name: .customLong("redact-json-path"), help: ArgumentHelp("Also redact this place in JSON bodies, such as $.user.ssn or $..secret.", valueName: "PATH"),
            transform: argument(JSONPath.init, reason: \.message))
    var jsonPaths: [JSONPath] = []

    @Flag(name: .customLong("no-default-redactions"), help: "Apply only the rules given, not the defaults (Authorization, Cookie, token, password...).")
    var noDefaults = false

    /// The rules the recorder applies before anything is written.
    var rules: RedactionRules {
        (noDefaults ? RedactionRules.none : RedactionRules.defaults)
            .adding(headers: headers, queryParameters: queryParameters, jsonPaths: jsonPaths)
    }

}
