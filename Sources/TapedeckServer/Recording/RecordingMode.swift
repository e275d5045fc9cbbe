import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import TapedeckCore

/// The recording proxy: serves what the cassette already matches (by mode) and decides to forward
/// the rest upstream, which its ``RecordingRunner`` carries out: it streams the answer back as it
/// arrives and records the finished exchange through the core's recorder (redacted, durably saved).
package final class RecordingMode: Mode {
    /// The core recorder holding the cassette.
    package let recorder: Recorder
    /// The local CA for intercepted HTTPS.
    package let authority: CertificateAuthority
    private let settings: RecordSettings
    private let base: ReverseProxyTarget?
    /// TLS for a recorded WebSocket's https upstream, with the chosen trust.
    private let upstreamTLS: NIOSSLContext
    package let admin: AdminEndpoints
    package let answers: PlaybackAnswers
    package let recording: RecordingRunner?
    private let logger: Logger
    /// What the cassette held when it was opened, prepared for the wire once, as the replay server's.
    private let prepared: PreparedResponses

    /// Opens the cassette and sets up upstream TLS; bad settings or a broken cassette throw.
    ///
    /// - Parameters:
    ///   - logger: told of what could not be saved or recorded (errors), and of expired
    ///     interactions served and exchanges left unrecorded (warnings), one line each.
    ///   - dialer: how upstream connections are opened; tests hand in their own channels.
    package init(settings: RecordSettings, configuration: ServerConfiguration, authority: CertificateAuthority,
                 logger: Logger = Logger(label: "tapedeck.record"), dialer: UpstreamDialer = .socket) throws {
        self.settings = settings
        base = settings.target
        let forwarder = UpstreamForwarder(tls: try settings.trust.sslContext(), http2TLS: try settings.trust.sslContext(alpn: ["h2", "http/1.1"]),
                                          http1Only: HTTP1OnlyOrigins(logger: logger), timeout: settings.upstreamTimeout,
                                          dialer: UpstreamConnectionLimit(limit: settings.maxUpstreamConnections).counting(dialer))
        upstreamTLS = forwarder.tls
        recorder = try Recorder(file: settings.cassette, mode: settings.mode, redaction: settings.redaction,
                                playback: settings.playback, hooks: settings.hooks, stubs: settings.stubs, keepsSpareFile: true,
                                onSaveError: { error in logger.error("cannot save: \(error)") })
        prepared = try PreparedResponses(recorder.player)
        self.logger = logger
        self.authority = authority
        answers = PlaybackAnswers(configuration: configuration, logger: logger, redaction: settings.redaction,
                                  secrets: settings.playback.secrets, protoSchema: settings.playback.match.protoSchema)
        recording = RecordingRunner(recorder: recorder, forwarder: forwarder, answers: answers,
                                    secrets: settings.playback.secrets, contract: settings.contract, logger: logger)
        var admin = AdminEndpoints(
            mode: settings.mode.rawValue,
            cassettes: { [recorder] in ([recorder.file.relativePath], recorder.interactionCount) },
            journal: answers.journal, unmatched: answers.unmatched, stubs: recorder.stubs,
            resetPlayback: { [recorder] in recorder.reset() }, authority: authority, guardian: AdminGuard(configuration), redaction: answers.redaction)
        admin.inspector = answers.exchanges.map { [recorder] exchanges in
            Inspector(mode: settings.mode.rawValue, exchanges: exchanges, players: { [recorder.player] },
                      recordedThisRun: { recorder.interactionCount - recorder.player.interactions.count })
        }
        self.admin = admin
    }

    /// The request journal.
    package var journal: Journal { answers.journal }
    /// Unmatched requests (mode once with an existing cassette).
    package var unmatched: UnmatchedLog { answers.unmatched }

    /// How many exchanges are under way: being forwarded, or finished and still being hashed, redacted or saved.
    package var exchangesUnderWay: Int { recording?.running ?? 0 }

    /// Waits for the exchanges under way, saves everything recorded and removes the spare file.
    package func shutdown() async throws {
        await recording?.waitForAll()
        try recorder.finish()
    }

    package func passesThrough(host: String) -> Bool {
        settings.passthroughHosts.contains(host)
    }

    package func decide(_ request: IncomingRequest, control: ControlHeaders, quickly: Bool) -> Decision? {
        guard let (cassetteRequest, target, host, port) = addressing(request) else { return .refuse(Self.noTarget) }
        let isWebSocket = WebSocketHandshake.isUpgrade(request.head)
        if passesThrough(host: host) {
            if isWebSocket { return .tunnel(upgradeTunnel(request, as: cassetteRequest, host: host, port: port)) }
            return .forward(forwarding(request, as: cassetteRequest, target: target, record: false))
        }
        if let refusal = Decision.refusal(of: cassetteRequest, breaking: settings.contract) { return refusal }
        guard let route = recorder.route(cassetteRequest, session: control.session, quickly: quickly) else { return nil }
        switch route {
        case .replay(let playback):
            return .playing(playback, from: prepared, request: cassetteRequest, session: control.session)
        case .unmatched(let diagnosis):
            return .unmatched(diagnosis, request: cassetteRequest, session: control.session)
        case .forward where isWebSocket:
            return .webSocket(webSocketRecording(request, as: cassetteRequest, target: target, host: host, port: port))
        case .forward:
            return .forward(forwarding(request, as: cassetteRequest, target: target, record: true))
        }
    }

    /// A gRPC call on an HTTP/2 stream, or an upload past the memory threshold, goes to the
    /// upstream as it arrives (a client that waits for each answer before its next message is
    /// served; the upstream takes an upload as it is sent) when its body cannot change what happens
    /// to it: its host is passed through, or this recorder forwards it whatever the body is
    /// (``Recorder/forwardsWhateverTheBody(_:)``). The cassette gets the whole body once it ends.
    package func decideStreaming(_ request: IncomingRequest, control: ControlHeaders) -> Decision? {
        guard let (cassetteRequest, target, host, _) = addressing(request) else { return .refuse(Self.noTarget) }
        if passesThrough(host: host) { return .forward(forwarding(request, as: cassetteRequest, target: target, record: false)) }
        guard recorder.forwardsWhateverTheBody(cassetteRequest) else { return nil }
        return .forward(forwarding(request, as: cassetteRequest, target: target, record: true))
    }

    /// The request as the cassette keeps it (its URL and `Host` the upstream's, in reverse-proxy
    /// mode), where it goes, and its host and port; nil when it names no upstream.
    private func addressing(_ request: IncomingRequest) -> (CassetteRequest, RequestTarget, host: String, port: Int)? {
        // Origin-form outside a tunnel: the request names no host, so it goes to `--target`.
        let url = request.url
        if let base, url.hasPrefix("/") {
            let (upstreamURL, target) = base.target(for: url)
            return (request.cassetteRequest(url: upstreamURL, host: base.authority), target, base.host, base.port)
        }
        let target = RequestTarget(url)
        guard let host = target.host, let port = target.port else { return nil }
        return (request.cassetteRequest(url: url, host: target.authority), target, host, port)
    }

    private static let noTarget = Refusal(.badRequest,
                                          "this recording proxy has no --target: use it as HTTP_PROXY/HTTPS_PROXY, or start it with --target URL")

    /// A WebSocket upgrade to record: the handshake as the upstream gets it (secrets revealed to
    /// it, as for any request).
    private func webSocketRecording(_ request: IncomingRequest, as cassetteRequest: CassetteRequest, target: RequestTarget,
                                    host: String, port: Int) -> WebSocketRecording {
        let (upstream, upstreamTarget) = upstreamView(of: request, as: cassetteRequest, target: target)
        var headers = HTTPHeaders()
        if let host = cassetteRequest.headers["Host"] ?? upstream.head.authority { headers.add(name: "Host", value: host) }
        for field in upstream.head.headerFields where !ControlHeaders.isControl(field.name.rawName) {
            headers.add(name: field.name.rawName, value: field.value)
        }
        let uri = upstreamTarget.path + (upstreamTarget.query.map { "?" + $0 } ?? "")
        return WebSocketRecording(host: host, port: port, tls: target.scheme == "https" ? upstreamTLS : nil,
                                  head: HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: upstream.head.method.rawValue),
                                                        uri: uri, headers: headers),
                                  cassetteRequest: cassetteRequest)
    }

    /// A WebSocket upgrade to a passthrough host is relayed to the upstream untouched and not recorded.
    private func upgradeTunnel(_ request: IncomingRequest, as cassetteRequest: CassetteRequest, host: String, port: Int) -> UpstreamTunnel {
        let target = cassetteRequest.target
        var head = "\(request.head.method.rawValue) \(target.path)\(target.query.map { "?" + $0 } ?? "") HTTP/1.1\r\n"
        if let host = request.hostHeader { head += "\(host.name): \(cassetteRequest.headers["Host"] ?? host.value)\r\n" }
        for field in request.head.headerFields where !ControlHeaders.isControl(field.name.rawName) {
            head += "\(field.name.rawName): \(field.value)\r\n"
        }
        head += "\r\n"
        var bytes = ByteBuffer(string: head)
        var body = request.body
        bytes.writeBuffer(&body)
        return UpstreamTunnel(host: host, port: port, tls: target.scheme == "https" ? upstreamTLS : nil, initialBytes: bytes)
    }

    /// The request and its target as the upstream gets them: with the live values of the secrets
    /// that may go to its host (`--target` in reverse mode, the hosts named with `@HOST`); the
    /// cassette gets the placeholders.
    private func upstreamView(of request: IncomingRequest, as cassetteRequest: CassetteRequest,
                              target: RequestTarget) -> (IncomingRequest, RequestTarget) {
        guard !settings.playback.secrets.isEmpty else { return (request, target) }
        let secrets = settings.playback.secrets.revealable(to: target.host, home: base.map { .host($0.host) } ?? .nowhere)
        let upstream = secrets.isEmpty ? request : request.revealing(secrets)
        let upstreamTarget = secrets.isEmpty ? target : RequestTarget(secrets.revealing(cassetteRequest.url))
        let kept = settings.playback.secrets.placeholders(in: "\(request.target) \(request.head.headerFields)")
            .filter { name in !secrets.entries.contains { $0.name == name } }
        if !kept.isEmpty {
            logger.warning("secret \(kept.map { "<\($0)>" }.joined(separator: ", ")) not revealed to \(target.host ?? "?"): it is bound elsewhere; forwarded as written")
        }
        return (upstream, upstreamTarget)
    }

    /// The request as the upstream gets it, where it goes, and whether it is recorded (not for a
    /// passthrough host).
    private func forwarding(_ request: IncomingRequest, as cassetteRequest: CassetteRequest, target: RequestTarget,
                            record: Bool) -> Forwarding {
        let (upstream, upstreamTarget) = upstreamView(of: request, as: cassetteRequest, target: target)
        return Forwarding(request: upstream, cassetteRequest: cassetteRequest, target: upstreamTarget, record: record)
    }
}
