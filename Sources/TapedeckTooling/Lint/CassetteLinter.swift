import Foundation
import TapedeckCore

/// Checks cassettes: the schema as the codec reads it, secrets left in clear, interactions that
/// add nothing or can never be served (judged by the core ``Matcher``), and missing timing.
package struct CassetteLinter: Sendable {
    /// The match options replay will use; duplicates are judged under them.
    package var matchOptions: MatchOptions
    /// The redaction rules a clean cassette satisfies (the defaults unless told otherwise).
    package var redaction: RedactionRules
    /// The codec that reads the files.
    package var codec: CassetteCodec
    /// Report interactions older than this many days (else the cassette's `meta.expireAfterDays`, if any).
    package var expireAfterDays: Double?
    /// The current time, for expiry.
    package var now: @Sendable () -> Date

    /// Creates a linter.
    package init(matchOptions: MatchOptions = .default, redaction: RedactionRules = .defaults,
                codec: CassetteCodec = CassetteCodec(), expireAfterDays: Double? = nil,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.matchOptions = matchOptions
        self.redaction = redaction
        self.codec = codec
        self.expireAfterDays = expireAfterDays
        self.now = now
    }

    /// Every finding for a cassette file: the schema errors if it does not load (one for each
    /// interaction that does not, ``CassetteCodec/errors(decoding:file:)``), otherwise the checks.
    package func lint(file: URL) -> [LintFinding] {
        do {
            return lint(try codec.load(file), file: file.relativePath)
        } catch {
            guard case .content = error.kind, let data = try? Data(contentsOf: file) else {
                return [Self.schemaFinding(error, file: file.relativePath)]
            }
            return codec.errors(decoding: data, file: file).map { Self.schemaFinding($0, file: file.relativePath) }
        }
    }

    /// Every finding for a loaded cassette, in interaction order.
    package func lint(_ cassette: Cassette, file: String) -> [LintFinding] {
        let scanner = SecretScanner()
        let redaction = CassetteRedaction(rules: redaction)
        let matcher = Matcher(interactions: cassette.interactions, options: matchOptions)
        var findings: [LintFinding] = []
        for (index, interaction) in cassette.interactions.enumerated() {
            let place = "interactions[\(index)]"
            func warn(_ kind: LintFinding.Kind, _ where: String, _ message: String) {
                findings.append(LintFinding(severity: .warning, kind: kind, file: file, place: `where`, message: message))
            }
            func found(_ hits: [SecretScanner.Hit], at location: String) {
                for hit in hits {
                    warn(.secret, location, "looks like a \(hit.name) in clear (\(hit.preview)); redact it or use a fake value")
                }
            }
            func unreadable(_ location: String, _ error: any Error) {
                findings.append(LintFinding(severity: .error, kind: .content, file: file, place: location, message: "\(error)"))
            }
            let largeChanges: [String]
            do {
                largeChanges = try redaction.largeBodyChanges(of: interaction)
            } catch {
                largeChanges = []
                unreadable(place, error)
            }
            for change in redaction.redactor.redact(interaction).changes + largeChanges {
                warn(.secret, place, "\(change): not redacted; `tapedeck redact` replaces it with \(Redactor.placeholder)")
            }
            for (location, searched) in searched(interaction, at: place) {
                do {
                    found(try scanner.scan(searched), at: location)
                } catch {
                    unreadable(location, error)
                }
            }
            findings += duplicateFindings(for: index, in: cassette, matcher: matcher, file: file)
            if interaction.timing == nil && interaction.delayMs == nil {
                warn(.timing, place, "no timing recorded; `--latency recorded` serves it with no delay")
            }
            let answered = [("headers", interaction.response.headers), ("trailers", interaction.response.trailers ?? HeaderList())]
            for (part, fields) in answered {
                for field in fields where field.name.hasPrefix(":") {
                    warn(.content, "\(place).response.\(part).\(field.name)",
                         "a pseudo-header name in a response field, which replay leaves out (a field name is a token): remove it")
                }
            }
            if let problem = GRPCCall.statusProblem(of: interaction.response) {
                warn(.content, "\(place).response.trailers", problem)
            }
            if interaction.chunks != nil && !interaction.response.body.isEmpty {
                warn(.content, "\(place).response.body", "has both a body and chunks; replay serves the chunks and ignores the body")
            }
            let days = ExpiryOptions(days: expireAfterDays).days(for: cassette.meta)
            if ExpiryOptions.isExpired(recordedAt: interaction.recordedAt, days: days, now: now()), let days {
                warn(.expired, place, "recorded \(interaction.recordedAt ?? ""), more than \(days.formatted()) days ago; "
                     + "re-record it (tapedeck record --on-expired rerecord)")
            }
        }
        for (index, stub) in cassette.stubs.enumerated() {
            for problem in StubCheck.undefinedCaptures(in: stub) {
                findings.append(LintFinding(severity: .error, kind: .stub, file: file, place: "stubs[\(index)].response", message: problem))
            }
            for problem in StubCheck.possiblyAbsentValues(in: stub) {
                findings.append(LintFinding(severity: .warning, kind: .stub, file: file, place: "stubs[\(index)].response", message: problem))
            }
        }
        return findings
    }

    /// What to search for secret shapes, by place (a URL or a header as a body of its text);
    /// headers covered by the redaction rules are left to the rule check so one secret is reported once.
    private func searched(_ interaction: Interaction, at place: String) -> [(String, Body)] {
        var searched: [(String, Body)] = [("\(place).request.url", Body(text: interaction.request.url))]
        for field in interaction.request.headers where !redaction.requestHeaders.contains(field.name.lowercased()) {
            searched.append(("\(place).request.headers.\(field.name)", Body(text: field.value)))
        }
        searched.append(("\(place).request.body", interaction.request.body))
        for field in interaction.response.headers where !redaction.responseHeaders.contains(field.name.lowercased()) {
            searched.append(("\(place).response.headers.\(field.name)", Body(text: field.value)))
        }
        searched.append(("\(place).response.body", interaction.response.body))
        for (number, chunk) in (interaction.chunks ?? []).enumerated() {
            searched.append(("\(place).chunks[\(number)]", Body(chunk.data)))
        }
        return searched
    }

    /// Judged with the core matcher, exactly as replay finds candidates: an interaction its own request
    /// cannot reach is never served; one that repeats an earlier match with the same response is served
    /// only as a repeat that `repeat-last` would answer identically without it.
    private func duplicateFindings(for index: Int, in cassette: Cassette, matcher: Matcher, file: String) -> [LintFinding] {
        let interaction = cassette.interactions[index]
        let candidates = matcher.matches(interaction.request)
        guard candidates.contains(index) else {
            return [LintFinding(severity: .warning, kind: .duplicate, file: file, place: "interactions[\(index)]",
                                message: "can never be played: its own request does not match it under the match rules")]
        }
        guard let previous = candidates.last(where: { $0 < index }) else { return [] }
        let earlier = cassette.interactions[previous]
        guard earlier.response == interaction.response, earlier.chunks == interaction.chunks else { return [] }
        let position = candidates.filter { $0 <= index }.count
        return [LintFinding(
            severity: .warning, kind: .duplicate, file: file, place: "interactions[\(index)]",
            message: "duplicate of interactions[\(previous)] (same request, same response): it only serves call \(position) of that "
                + "request, which --on-exhausted repeat-last answers the same without it; consider removing it")]
    }

    /// A load failure as a finding, naming the place as the codec does.
    static func schemaFinding(_ error: CassetteError, file: String) -> LintFinding {
        let place: String
        let message: String
        switch error.kind {
        case let .syntax(line, column, text):
            place = "line \(line), column \(column)"
            message = "invalid JSON: \(text)"
        case let .content(path, text):
            place = path
            message = text
        case .unsupportedVersion:
            place = "version"
            message = error.description.components(separatedBy: ": ").dropFirst().joined(separator: ": ")
        case .io(let text):
            place = ""
            message = text
        case .inUse:
            place = ""
            message = error.description
        }
        return LintFinding(severity: .error, kind: .schema, file: file, place: place, message: message)
    }
}
