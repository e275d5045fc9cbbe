import ArgumentParser
import Foundation
import TapedeckCore

/// Stubs, reversible secrets and expiry: the options `tapedeck replay` and `tapedeck record` share.
struct LifecycleOptions: ParsableArguments {
    @Option(name: .customLong("stubs"), help: ArgumentHelp("Load the stubs of this file (a cassette with \"stubs\"); repeatable.", valueName: "FILE"))
    var stubFiles: [String] = []

    @Option(name: .customLong("secret"), help: ArgumentHelp("Stand <NAME> for the value of ENVVAR wherever it appears; repeatable.", valueName: "NAME=ENVVAR"))
    var secrets: [String] = []

    @Option(name: .customLong("expire-after"), help: ArgumentHelp("Interactions recorded more than DAYS days ago are expired (else the cassette's meta.expireAfterDays).", valueName: "DAYS"))
    var expireAfterDays: Double?

    @Option(name: .customLong("on-expired"), help: "What an expired interaction does: warn, error or rerecord.")
    var onExpired: ExpiryPolicy = .warn

    @Option(name: .customLong("max-template-output"),
            help: ArgumentHelp("The most bytes a templated stub answer may expand to; past it the answer is a 500 naming the stub.", valueName: "BYTES"))
    var maxTemplateOutput = StubSet.defaultMaxTemplateOutput

    @Option(name: .customLong("now"), help: ArgumentHelp("Fix the current time (ISO 8601) for expiry and {{now}}, for reproducible runs.", valueName: "TIME"))
    var now: String?

    func validate() throws {
        if let expireAfterDays, expireAfterDays <= 0 { throw ValidationError("--expire-after must be positive") }
        guard (1...(1 << 30)).contains(maxTemplateOutput) else {
            throw ValidationError("--max-template-output must be from 1 to \(1 << 30) bytes, not \(maxTemplateOutput)")
        }
        if let now, Self.date(now) == nil { throw ValidationError("--now \(now) is not an ISO 8601 time such as 2026-11-21T10:00:00Z") }
    }

    /// Adds the secrets and expiry to playback options.
    func apply(to options: inout PlaybackOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        options.secrets = try Secrets(specifications: secrets, environment: environment)
        options.expiry = ExpiryOptions(days: expireAfterDays, policy: onExpired)
        options.maxTemplateOutput = maxTemplateOutput
    }

    /// The clock of expiry and `{{now}}`.
    var hooks: PlaybackHooks {
        guard let now, let fixed = Self.date(now) else { return PlaybackHooks() }
        return PlaybackHooks(now: { fixed })
    }

    /// The stubs of the `--stubs` files; a broken file throws naming the file and the place.
    func loadStubs() throws -> [Stub] {
        try stubFiles.flatMap { try CassetteCodec(reading: .stubs).load(URL(filePath: $0)).stubs }
    }

    private static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
    }
}
