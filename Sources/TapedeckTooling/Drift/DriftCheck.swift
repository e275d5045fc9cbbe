import Foundation
import HTTPTypes
import TapedeckCore

/// `tapedeck drift`: sends each recorded request to the live service again and reports how the
/// answers moved away from the recording. It never runs during replay; it is a tool a team runs
/// on purpose (say, nightly) against a real or a staging service.
package struct DriftCheck: Sendable {
    /// Where requests go; nil sends each to the origin it was recorded from.
    package var target: URL?
    /// Put back into requests before sending, and concealed again in what `--update` saves.
    package var secrets: Secrets
    /// What counts as a difference.
    package var comparison: DriftComparison

    /// Creates a check.
    package init(target: URL? = nil, secrets: Secrets = .none, comparison: DriftComparison = DriftComparison()) {
        self.target = target
        self.secrets = secrets
        self.comparison = comparison
    }

    /// What one run found.
    package struct Report: Sendable {
        /// Every difference, in interaction order.
        package var differences: [DriftDifference]
        /// The interactions with the live answers in place of the recorded ones (concealed, not yet redacted).
        package var refreshed: [Interaction]
        /// Whether anything but additions changed.
        package var isBreaking: Bool { differences.contains { $0.isBreaking } }
        /// `3 interactions checked: 2 differences, 1 breaking`.
        package var summary: String {
            let breaking = differences.filter(\.isBreaking).count
            return "\(refreshed.count) interaction\(refreshed.count == 1 ? "" : "s") checked: "
                + "\(differences.count) difference\(differences.count == 1 ? "" : "s"), \(breaking) breaking"
        }
    }

    /// Sends a request to the live service: its answer and the body as received.
    package typealias Send = @Sendable (HTTPRequest, Data?) async throws -> (HTTPResponse, Data)

    /// Sends every recorded request through `send` and compares the answers.
    ///
    /// - Parameter progress: called after each interaction with (done, total).
    package func run(_ cassette: Cassette, sendingWith send: Send,
                    progress: @Sendable (Int, Int) -> Void = { _, _ in }) async -> Report {
        var report = Report(differences: [], refreshed: [])
        for (index, interaction) in cassette.interactions.enumerated() {
            defer { progress(index + 1, cassette.interactions.count) }
            do {
                let request = try httpRequest(for: secrets.reveal(interaction.request))
                let body = interaction.request.body.isEmpty ? nil : secrets.reveal(interaction.request).body.data
                let (response, received) = try await send(request, body)
                var headers = HeaderList(response.headerFields)
                headers.remove("Content-Length")
                // Compared and saved as a recording stores it: gzip and deflate decoded.
                let liveBody = Body.storing(received: received, contentEncoding: headers["Content-Encoding"])
                let liveResponse = CassetteResponse(status: response.status.code, headers: headers, body: liveBody)
                report.differences += comparison.differences(
                    recorded: interaction.response, recordedBody: interaction.responseBodyData,
                    live: liveResponse, liveBody: liveBody.data, index: index)
                var refreshed = interaction
                refreshed.response = liveResponse
                refreshed.chunks = nil
                refreshed.recordedAt = Timestamp.now()
                report.refreshed.append(secrets.conceal(refreshed))
            } catch {
                report.differences.append(DriftDifference(interaction: index, kind: .unreachable, place: "request",
                                                          change: "\(interaction.request.method) \(interaction.request.url): \(error)"))
                report.refreshed.append(interaction)
            }
        }
        return report
    }

    /// The request to send: the recorded one, moved to `target` when given.
    func httpRequest(for recorded: CassetteRequest) throws(DriftError) -> HTTPRequest {
        let parts = recorded.target
        let origin: (scheme: String, authority: String)
        if let target, let scheme = target.scheme, let host = target.host {
            origin = (scheme, target.port.map { "\(host):\($0)" } ?? host)
        } else if let scheme = parts.scheme, let authority = parts.authority {
            origin = (scheme, authority)
        } else {
            throw .noOrigin(recorded.url)
        }
        let basePath = target.map { $0.path.hasSuffix("/") ? String($0.path.dropLast()) : $0.path } ?? ""
        var fields = HTTPFields()
        for field in recorded.headers {
            guard let name = HTTPField.Name(field.name), field.name.lowercased() != "host", field.value != Redactor.placeholder else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        guard let method = HTTPRequest.Method(recorded.method) else { throw .badMethod(recorded.method) }
        return HTTPRequest(method: method, scheme: origin.scheme, authority: origin.authority,
                           path: basePath + parts.path + (parts.query.map { "?\($0)" } ?? ""), headerFields: fields)
    }
}

/// A recorded request that cannot be sent again.
package enum DriftError: Error, CustomStringConvertible, Sendable {
    /// The recording names no host, and no `--target` was given.
    case noOrigin(String)
    /// The method is not a valid HTTP method.
    case badMethod(String)

    package var description: String {
        switch self {
        case .noOrigin(let url): return "\(url) names no host: pass --target URL"
        case .badMethod(let method): return "\"\(method)\" is not an HTTP method"
        }
    }
}
