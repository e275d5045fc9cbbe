import NIOCore
import NIOHTTP1
import TapedeckCore

/// The decisions of one HTTP connection, as a value: which request part starts what, when a
/// request is refused, when reads are held, when the connection closes. It does no I/O; each
/// event returns an action that ``ExchangeHandler`` carries out (the AsyncHTTPClient pattern),
/// so every rule here is tested without a socket (`ExchangeStateMachineTests`).
///
/// A client may pipeline requests: parts that arrive while a response is under way wait here
/// and are taken up when it ends, and reads are held meanwhile, so a client cannot make the
/// server buffer more than one read ahead (``ConnectionReadHandler``).
struct ExchangeStateMachine {
    /// Where the connection is in its request/response cycle.
    enum State {
        /// Waiting for a request head.
        case idle
        /// Reading a request body.
        case receiving(HTTPRequestHead, ByteBuffer, arrival: NIODeadline)
        /// Reading the rest of a `CONNECT host:port` request.
        case connecting(host: String, port: Int)
        /// A response (or a tunnel) is being produced.
        case responding(keepAlive: Bool)
        /// The request was refused; the connection closes once the answer is written.
        case closing
        /// Only while a body buffer is being appended to, so it has one owner and grows in place.
        case modifying
    }

    /// What the handler does after a request part.
    enum PartAction: Equatable {
        /// Nothing yet (a head or body part taken in, or a part kept for later).
        case none
        /// Tell the client to send its body (`Expect: 100-continue`).
        case sendContinue(HTTPVersion)
        /// Hand a whole request to the responder.
        case respond(HTTPRequestHead, ByteBuffer, arrival: NIODeadline)
        /// Answer with this status and reason, then close.
        case refuse(HTTPResponseStatus, reason: String)
        /// Decide what the `CONNECT` becomes (``ConnectPlan``).
        case planTunnel(host: String, port: Int)
    }

    /// What the handler does after the response ended.
    enum EndAction: Equatable {
        /// Keep the connection for the next request.
        case keepAlive
        /// Close the connection once the end is written.
        case close
    }

    private(set) var state = State.idle
    /// Request parts that arrived while a response was under way, in order.
    private var waiting = CircularBuffer<HTTPServerRequestPart>()
    /// Whether a read was asked for while a response was under way.
    private var readHeld = false
    private let maxBodySize: Int
    /// Whether this connection is already inside a tunnel, where `CONNECT` makes no sense.
    private let isTunnel: Bool

    init(maxBodySize: Int, isTunnel: Bool) {
        self.maxBodySize = maxBodySize
        self.isTunnel = isTunnel
    }

    /// Whether a response (or a tunnel) is under way.
    var isResponding: Bool {
        if case .responding = state { return true }
        return false
    }

    /// Whether the response under way is the connection's last, so its head says `Connection: close`.
    var closesAfterResponse: Bool {
        if case .responding(keepAlive: false) = state { return true }
        return false
    }

    // MARK: events

    /// A request part arrived from the decoder.
    mutating func received(_ part: HTTPServerRequestPart, now: NIODeadline) -> PartAction {
        if isResponding || !waiting.isEmpty {
            waiting.append(part)
            return .none
        }
        return take(part, now: now)
    }

    /// Takes up the next part that waited for a response to end: its action, or nil when none
    /// waits or a response is under way again.
    mutating func takeWaitingPart(now: NIODeadline) -> PartAction? {
        guard !isResponding, let part = waiting.popFirst() else { return nil }
        return take(part, now: now)
    }

    /// The handlers behind asked for a read: whether to pass it on now (else it is held).
    mutating func readRequested() -> Bool {
        if isResponding {
            readHeld = true
            return false
        }
        return true
    }

    /// Whether a held read should be passed on now: once no response is under way and nothing waits.
    mutating func releaseHeldRead() -> Bool {
        guard readHeld, !isResponding, waiting.isEmpty else { return false }
        readHeld = false
        return true
    }

    /// The response ended.
    mutating func responseEnded() -> EndAction {
        switch state {
        case .responding(keepAlive: true):
            state = .idle
            return .keepAlive
        case .responding(keepAlive: false), .closing:
            state = .closing
            return .close
        case .idle, .receiving, .connecting, .modifying:
            // A response no request asked for (a refusal written while idle) keeps the cycle as it is.
            return .keepAlive
        }
    }

    /// The `CONNECT` was answered with a tunnel: the connection now belongs to it.
    mutating func tunnelOpened() {
        state = .responding(keepAlive: true)
    }

    /// The connection is being refused (a parse error, a failed tunnel): it closes after the answer.
    mutating func refused() {
        state = .closing
    }

    /// Nothing was read for the idle timeout: whether to close. A connection with a response or
    /// a tunnel under way stays.
    func idleTimeoutFired() -> Bool {
        switch state {
        case .responding, .connecting: false
        case .idle, .receiving, .closing, .modifying: true
        }
    }

    /// The decoder failed: the answer, or nil to close without one (a response is already under way,
    /// or the error is not a parse error).
    mutating func decodingFailed(_ error: any Error) -> PartAction? {
        switch (error as? HTTPParserError, state) {
        case (_, .responding), (_, .closing), (nil, _):
            return nil
        case (.headerOverflow?, _):
            state = .closing
            return .refuse(.requestHeaderFieldsTooLarge, reason: "the request headers are over the size limit")
        case (let parserError?, _):
            state = .closing
            return .refuse(.badRequest, reason: "malformed request: \(parserError)")
        }
    }

    // MARK: the request cycle

    private mutating func take(_ part: HTTPServerRequestPart, now: NIODeadline) -> PartAction {
        switch (part, state) {
        case (.head(let head), .idle):
            return start(head, now: now)
        case (.body(var chunk), .receiving(let head, var body, let arrival)):
            state = .modifying
            guard body.readableBytes + chunk.readableBytes <= maxBodySize else {
                return refuse(.payloadTooLarge, "the request body is over the limit of \(maxBodySize) bytes (--max-body)")
            }
            if body.readableBytes == 0 { body = chunk } else { body.writeBuffer(&chunk) }
            state = .receiving(head, body, arrival: arrival)
            return .none
        case (.end, .receiving(let head, let body, let arrival)):
            state = .responding(keepAlive: head.isKeepAlive)
            return .respond(head, body, arrival: arrival)
        case (.end, .connecting(let host, let port)):
            return .planTunnel(host: host, port: port)
        case (.body, .connecting), (_, .closing), (.body, .idle), (.end, .idle):
            return .none
        case (.head, _), (.body, _), (.end, _):
            return refuse(.badRequest, "unexpected request part")
        }
    }

    private mutating func start(_ head: HTTPRequestHead, now: NIODeadline) -> PartAction {
        if head.method == .CONNECT {
            guard !isTunnel, let (host, port) = Self.connectTarget(head.uri) else {
                return refuse(.badRequest, "CONNECT needs host:port")
            }
            state = .connecting(host: host, port: port)
            return .none
        }
        if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBodySize {
            return refuse(.payloadTooLarge,
                          "the request body of \(length) bytes is over the limit of \(maxBodySize) bytes (--max-body)")
        }
        state = .receiving(head, ByteBuffer(), arrival: now)
        if head.headers[canonicalForm: "Expect"].contains(where: { $0.caseInsensitiveEquals("100-continue") }) {
            // The client waits for this before sending its body; a request refused early (413 above) never gets it.
            return .sendContinue(head.version)
        }
        return .none
    }

    private mutating func refuse(_ status: HTTPResponseStatus, _ reason: String) -> PartAction {
        state = .closing
        return .refuse(status, reason: reason)
    }

    /// The host and port of a `CONNECT host:port` (or `[v6]:port`); nil unless both are there.
    static func connectTarget(_ authority: String) -> (host: String, port: Int)? {
        let (host, port) = RequestTarget.splitAuthority(Substring(authority))
        guard let port, (1...65535).contains(port), !host.isEmpty else { return nil }
        return (host, port)
    }
}
