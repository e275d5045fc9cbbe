import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import TapedeckCore

/// The admin API under `/__tapedeck/`: health, journal, unmatched, reset, the CA certificate, its
/// own OpenAPI document (``AdminAPIDocument``), and the run-time stubs and verification of ``StubEndpoints``.
package struct AdminEndpoints: Sendable {
    /// The path prefix of every admin endpoint.
    package static let prefix = "/__tapedeck/"

    /// Whether a request target sent to the server itself (not inside a tunnel) is for the admin
    /// API, when that is `enabled` (it is not under `--no-admin`).
    static func addresses(_ uri: String, enabled: Bool) -> Bool {
        enabled && uri.hasPrefix(prefix)
    }

    /// The answer of `GET /__tapedeck/health`.
    package struct Health: Sendable, Codable {
        /// Always `ok` when the server answers.
        package var status: String
        /// `replay` or the recording mode.
        package var mode: String
        /// The cassettes loaded.
        package var cassettes: [String]
        /// How many interactions they hold.
        package var interactions: Int
    }

    /// `replay` or the recording mode.
    package var mode: String
    /// The cassettes and interaction count, read when asked.
    package var cassettes: @Sendable () -> (names: [String], interactions: Int)
    /// The request journal.
    package var journal: Journal
    /// The unmatched requests.
    package var unmatched: UnmatchedLog
    /// The stubs run-time requests add to and verification reads.
    package var stubs: StubSet
    /// Puts playback positions back to the start.
    package var resetPlayback: @Sendable () -> Void
    /// The local CA, for `ca.pem`.
    package var authority: CertificateAuthority
    /// Who may use these endpoints (``AdminGuard``).
    var guardian: AdminGuard
    /// What the views of requests show of them: the inspector's redaction.
    var redaction: ExchangeRedaction
    /// The inspector page and its data (``InspectorEndpoints``), if the server keeps exchanges.
    package var inspector: Inspector?

    /// Answers an admin request. The guard's 403 comes first; its 415 waits until the path and the
    /// method are known to be an operation, so a method a path does not take is 405 whatever its type.
    package func respond(to request: IncomingRequest, sink: ResponseSink) {
        let refusal = guardian.refusal(for: request.head, port: request.serverPort)
        if let (status, reason) = refusal, status != .unsupportedMediaType {
            sink.refuse(Refusal(status, code: "admin-refused", reason))
            return
        }
        let path = request.path
        let endpoint = path.dropFirst(Self.prefix.count)
        let method = request.head.method
        guard let methods = Self.methods(of: endpoint) else {
            sink.send(HTTPResponse(status: .notFound, headerFields: [.contentType: "text/plain; charset=utf-8"]),
                      body: ByteBuffer(string: "no admin endpoint \(path); try \(Self.namesInProse)\n"))
            return
        }
        guard methods.contains(method) else {
            sink.send(HTTPResponse(status: .methodNotAllowed, headerFields: [
                .contentType: "text/plain; charset=utf-8", .allow: methods.map(\.rawValue).joined(separator: ", "),
            ]), body: ByteBuffer(string: "\(method.rawValue) is not allowed on \(path)\n"))
            return
        }
        if let (status, reason) = refusal {
            sink.refuse(Refusal(status, code: "admin-refused", reason))
            return
        }
        if StubEndpoints(stubs: stubs, redaction: redaction).respond(to: endpoint, request: request, sink: sink) { return }
        if let inspector, InspectorEndpoints(inspector: inspector).respond(to: endpoint, request: request, sink: sink) { return }
        switch endpoint {
        case "health":
            let (names, count) = cassettes()
            sendJSON(Health(status: "ok", mode: mode, cassettes: names, interactions: count), sink: sink)
        case "journal":
            var document = journal.document()
            for number in document.entries.indices { document.entries[number].url = redaction.clean(url: document.entries[number].url) }
            sendJSON(document, sink: sink)
        case "unmatched":
            sendJSON(unmatched.document(), sink: sink)
        case "reset":
            resetPlayback()
            journal.reset()
            unmatched.reset()
            inspector?.exchanges.reset()
            sendJSON(["reset": true], sink: sink)
        case "openapi.json":
            sink.send(HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
                      body: ByteBuffer(string: AdminAPIDocument.json))
        case "ca.pem":
            do {
                let pem = try authority.certificatePEM()
                sink.send(HTTPResponse(status: .ok, headerFields: [.contentType: "application/x-pem-file"]),
                          body: ByteBuffer(string: pem))
            } catch {
                sink.send(HTTPResponse(status: .internalServerError, headerFields: [.contentType: "text/plain; charset=utf-8"]),
                          body: ByteBuffer(string: "\(error)\n"))
            }
        default:
            // Only an inspector endpoint of a server built without an inspector.
            sink.send(HTTPResponse(status: .notFound, headerFields: [.contentType: "text/plain; charset=utf-8"]),
                      body: ByteBuffer(string: "no admin endpoint \(path); try \(Self.namesInProse)\n"))
        }
    }

    private func sendJSON(_ value: some Encodable, sink: ResponseSink) {
        sink.send(HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
                  body: ByteBuffer(bytes: JSONBodies.encode(value)))
    }
}

/// JSON bodies the server writes: pretty, sorted keys, a final newline.
enum JSONBodies {
    /// Encodes a value; encoding the server's own types cannot fail.
    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        data.append(0x0A)
        return data
    }
}
