import ArgumentParser
import TapedeckCore

/// How `tapedeck replay` matches requests and plays answers back: the arguments that build the
/// core's ``PlaybackOptions``.
struct PlaybackArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Latency: none, recorded, fixed:MS (0 to 86400000) or scale:F (0 to 1000).", valueName: "LATENCY"))
    var latency = LatencyOption.none

    @Option(help: ArgumentHelp("Vary each delay by up to this percentage (deterministic with --seed).", valueName: "PERCENT"))
    var jitter: Double?

    @Option(help: "Seed of the jitter and of bodies generated from --openapi's schemas.")
    var seed: UInt64 = 0

    @Option(help: "When every matching interaction was played.")
    var onExhausted = ExhaustionPolicy.repeatLast

    @Option(help: ArgumentHelp("Ignore this query parameter when matching (repeatable).", valueName: "NAME"))
    var ignoreQuery: [String] = []

    @Option(help: ArgumentHelp("Ignore this form field when matching (repeatable).", valueName: "NAME"))
    var ignoreFormField: [String] = []

    @Option(help: ArgumentHelp("Ignore this JSON path in bodies when matching, such as $.meta.requestId or $..nonce (repeatable).",
                               valueName: "PATH"), transform: argument(JSONPath.init, reason: \.message))
    var ignoreJsonPath: [JSONPath] = []

    @Flag(help: "Do not compare bodies.")
    var ignoreBody = false

    @Option(help: ArgumentHelp("Also match this request header (repeatable).", valueName: "NAME"))
    var matchHeader: [String] = []

    @OptionGroup var proto: ProtoDescriptorOptions

    func validate() throws {
        if let jitter, !(0...100).contains(jitter) {
            throw ValidationError("--jitter must be a percentage from 0 to 100, not \(jitter)")
        }
    }

    /// The core's options, before the lifecycle options add secrets and expiry.
    var options: PlaybackOptions {
        let match = MatchOptions(ignoredQueryParameters: Set(ignoreQuery), ignoredFormFields: Set(ignoreFormField),
                                 ignoredJSONPaths: ignoreJsonPath, ignoreBody: ignoreBody, matchedHeaders: matchHeader,
                                 protoSchema: proto.schema)
        return PlaybackOptions(match: match, exhaustion: onExhausted,
                               latency: LatencyModel(latency, jitter: jitter.map { Jitter(percent: $0, seed: seed) }))
    }
}
