import HTTPTypes
import NIOCore
import NIOHTTP1
@_spi(Internals) import TapedeckCore

/// The decisions of one HTTP connection, as a value: which request part starts what, when a
/// request is refused or asked for proxy credentials, when reads are held, which writes belong
/// to the answer under way, when the connection closes. It does no I/O; each event returns an
/// action that ``ExchangeHandler`` carries out (the AsyncHTTPClient pattern), so every rule here
/// is tested without a socket (`ExchangeStateMachineTests`).
///
/// Answers leave in request order, one per request. A client may pipeline requests: parts that
/// arrive while a response is under way wait here, and so does a parse error behind them, and
/// are taken up when it ends; reads are held meanwhile, so a client cannot make the server
/// buffer more than one read ahead (``ConnectionReadHandler``). Every answer is numbered
/// (``answer``): a write for an answer that already ended, or a second head, is dropped. Reads
/// are held too while the client does not take what is written to it (the channel is not
/// writable), and once the connection closed nothing more is written or taken up.
struct ExchangeStateMachine {
    /// Where the connection is in its request/response cycle.
    enum State {
        /// Waiting for a request head.
        case idle
        /// Reading a request body: its parts go to the handler's collector (``PartAction/collect(_:)``).
        case receiving(HTTPRequestHead, arrival: NIODeadline)
        /// Reading the rest of a request that lacked proxy credentials; it is answered at its end.
        case challenging(keepAlive: Bool, toAdmin: Bool)
        /// Reading the rest of a `CONNECT host:port` request.
        case connecting(host: String, port: Int)
        /// A response (or a tunnel) is being produced.
        case responding(keepAlive: Bool)
        /// The request was refused; the connection closes once the answer is written.
        case closing
        /// The connection closed: nothing more is written or taken up.
        case closed
    }

    /// What the handler does after a request part.
    enum PartAction: Equatable {
        /// Nothing yet (a head or body part taken in, or a part kept for later).
        case none
        /// Tell the client to send its body (`Expect: 100-continue`).
        case sendContinue(HTTPVersion)
        /// Keep a part of the body of the request being received (``RequestBodyCollector``).
        case collect(ByteBuffer)
        /// Hand a whole request to the responder, with the body collected.
        case respond(HTTPRequestHead, arrival: NIODeadline)
        /// Hand a request to the responder before its body: a gRPC call on an HTTP/2 stream, whose
        /// client may wait for an answer before it sends its next message. Its body follows as
        /// ``requestBody(_:)`` and ``requestEnd``.
        case respondStreaming(HTTPRequestHead, arrival: NIODeadline)
        /// A part of the body of the request handed on early.
        case requestBody(ByteBuffer)
        /// The end of the body of the request handed on early.
        case requestEnd
        /// The request handed on early cannot go on (a second head on its stream, an upload's body
        /// over the limit or stopped): its body fails, and the stream or connection closes.
        case abandonRequest(reason: String)
        /// The body of the gRPC call handed on early grew past the limit: end its answer with
        /// gRPC's RESOURCE_EXHAUSTED and this reason, as a gRPC server does. The machine is closing
        /// by then, so the stream closes once those trailers are written (``EndAction/close``).
        case refuseCall(reason: String)
        /// Answer with this status and reason, then close.
        case refuse(HTTPResponse.Status, reason: String)
        /// Ask for the `--proxy-auth` credentials: 407, or 401 for an admin path (the inspector page
        /// opened in a browser), then keep the connection unless ``closesAfterResponse``.
        case challenge(toAdmin: Bool)
        /// Decide what the `CONNECT` becomes (``ConnectPlan``).
        case planTunnel(host: String, port: Int)
    }

    /// How a response head goes out.
    enum HeadFraming: Equatable {
        /// As the response gives it: with its length, or in chunks (HTTP/1.1) or a stream's frames (HTTP/2).
        case asGiven
        /// As HTTP/1.0, with no length, its body ending with the connection.
        case untilClose
    }

    /// What the handler does after the response ended.
    enum EndAction: Equatable {
        /// Keep the connection for the next request.
        case keepAlive
        /// Close the connection once the end is written.
        case close
    }

    /// What arrived while a response was under way, in order.
    private enum Waiting {
        case part(HTTPServerRequestPart)
        /// The decoder failed behind the parts before it: answered once they are.
        case parseFailure(HTTPResponse.Status, reason: String)
    }

    private(set) var state = State.idle
    /// The bytes of the body of the request being received so far, held to ``maxBodySize``.
    private var receivedBodySize = 0
    /// The number of the answer under way, or of the last one: writes carry it (``accepts(_:)``).
    private(set) var answer = 0
    /// Whether the answer under way has written its head.
    private var headWritten = false
    private var waiting = CircularBuffer<Waiting>()
    /// Whether a read was asked for while it could not be passed on.
    private var readHeld = false
    /// Whether the channel takes more writes now; a client that does not read its answers is not read from.
    private var isWritable = true
    private let maxBodySize: Int
    /// Whether this connection is already inside a tunnel, where `CONNECT` makes no sense.
    private let isTunnel: Bool
    /// The credentials every request must carry (`--proxy-auth`), if any.
    private let proxyAuthentication: ProxyAuthentication?
    /// Whether the server is stopping: the answer under way is the connection's last.
    private var isQuiescing = false
    /// Whether this is an HTTP/2 stream (its head says 2.0): one request, and no connection of its
    /// own to close; the HTTP/2 connection says `GOAWAY` when the server stops (``HTTP2IdleClose``).
    private(set) var isHTTP2Stream = false
    /// Whether the request being answered came as HTTP/1.0.
    private var isHTTP10 = false
    /// The body of a request handed on early, while it is being received.
    private var streamed: StreamedBody?

    /// A request body that arrives after its request was handed on.
    private struct StreamedBody {
        /// A gRPC call's, paced by its client (no body deadline), or a large upload's (``handOnUpload()``).
        enum Kind { case call, upload }
        let kind: Kind
        /// Its bytes so far.
        var size: Int
    }

    init(maxBodySize: Int, isTunnel: Bool, proxyAuthentication: ProxyAuthentication? = nil) {
        self.maxBodySize = maxBodySize
        self.isTunnel = isTunnel
        self.proxyAuthentication = proxyAuthentication
    }

    /// Whether a response (or a tunnel) is under way.
    var isResponding: Bool {
        switch state {
        case .responding, .closing: true
        case .idle, .receiving, .challenging, .connecting, .closed: false
        }
    }

    /// Whether the response under way is the connection's last, so its head says `Connection: close`.
    var closesAfterResponse: Bool {
        switch state {
        case .responding(keepAlive: false), .closing, .closed: true
        case .responding(keepAlive: true), .idle, .receiving, .challenging, .connecting: false
        }
    }

    // MARK: events

    /// A request part arrived from the decoder.
    mutating func received(_ part: HTTPServerRequestPart, now: NIODeadline) -> PartAction {
        if let streamed {
            return takeStreamed(part, streamed)
        }
        if isResponding || !waiting.isEmpty {
            waiting.append(.part(part))
            return .none
        }
        return take(part, now: now)
    }

    /// Takes up the next part that waited for a response to end: its action, or nil when none
    /// waits or a response is under way again.
    mutating func takeWaitingPart(now: NIODeadline) -> PartAction? {
        guard !isResponding, let next = waiting.popFirst() else { return nil }
        switch next {
        case .part(let part):
            return take(part, now: now)
        case .parseFailure(let status, let reason):
            waiting.removeAll()
            return refuse(status, reason)
        }
    }

    /// The handlers behind asked for a read: whether to pass it on now (else it is held). A request
    /// handed on before its body ended is read on while it is answered, as long as the client
    /// takes what is written to it.
    mutating func readRequested() -> Bool {
        if !mayRead {
            readHeld = true
            return false
        }
        return true
    }

    /// Whether a held read should be passed on now: once the channel is writable, no whole
    /// request's response is under way and nothing waits.
    mutating func releaseHeldRead() -> Bool {
        guard readHeld, mayRead, waiting.isEmpty else { return false }
        readHeld = false
        return true
    }

    private var mayRead: Bool {
        isWritable && (!isResponding || streamed != nil)
    }

    /// The channel became writable or stopped being so: whether to pass on a held read now.
    mutating func writabilityChanged(isWritable: Bool) -> Bool {
        self.isWritable = isWritable
        return releaseHeldRead()
    }

    /// The connection closed: whether a request handed on before its body ended was still
    /// arriving (its body fails). Nothing more is written, nothing waiting is taken up.
    mutating func connectionClosed() -> Bool {
        let bodyCut = streamed != nil
        state = .closed
        streamed = nil
        waiting.removeAll()
        return bodyCut
    }

    /// Whether a write for answer `number` belongs to the answer under way.
    func accepts(_ number: Int) -> Bool {
        number == answer && isResponding
    }

    /// A head is about to be written for answer `number`: how it goes, nil when it may not (each
    /// answer gets one head). An HTTP/1.0 client knows no chunked framing (RFC 9112 section 6.1):
    /// an answer to it without a length is delimited by the connection's close instead, so it
    /// becomes the connection's last.
    mutating func headWillBeWritten(for number: Int, hasLength: Bool) -> HeadFraming? {
        guard accepts(number), !headWritten else { return nil }
        headWritten = true
        guard isHTTP10, !hasLength else { return .asGiven }
        if case .responding = state { state = .responding(keepAlive: false) }
        return .untilClose
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
        case .idle, .receiving, .challenging, .connecting, .closed:
            // Not reached through the handler, which ends only the answer it accepts.
            return .keepAlive
        }
    }

    /// The `CONNECT` was answered with a tunnel: the connection now belongs to it.
    mutating func tunnelOpened() {
        state = .responding(keepAlive: true)
    }

    /// The connection is being refused by the handler (a failed tunnel): it closes after the answer.
    mutating func refused() {
        state = .closing
    }

    /// The server is stopping (SwiftNIO's `ChannelShouldQuiesceEvent`): whether to close now. A
    /// connection between requests closes at once; one reading or answering a request closes once
    /// that answer is out (its head says `Connection: close` unless it left already), and what was
    /// pipelined behind it is not taken up. An HTTP/2 stream just finishes.
    mutating func quiesce() -> Bool {
        guard !isHTTP2Stream else { return false }
        isQuiescing = true
        waiting.removeAll()
        switch state {
        case .idle:
            return true
        case .responding:
            state = .responding(keepAlive: false)
            return false
        case .receiving, .challenging, .connecting, .closing, .closed:
            return false
        }
    }

    /// Whether the connection waits for a request's head (none of it read yet, or only part): its
    /// head deadline runs (``ServerConfiguration/headerTimeout``), and a connection still waiting when
    /// it passes is closed without an answer, as nginx closes one past `client_header_timeout`.
    var awaitsHead: Bool {
        guard case .idle = state else { return false }
        return waiting.isEmpty
    }

    /// Whether a request body is arriving that its body deadline runs for
    /// (``ServerConfiguration/bodyTimeout``): one taken whole, or a large upload handed on. A
    /// streaming call's body paces itself, and has none.
    var receivesBody: Bool {
        if case .receiving = state { return true }
        return streamed?.kind == .upload
    }

    /// The body stopped arriving for the body timeout: 408, and the connection closes, as nginx
    /// answers past `client_body_timeout`. An upload handed on may have its answer under way, so
    /// its request is abandoned instead: the connection (or stream) closes.
    mutating func bodyTimedOut(after timeout: TimeAmount) -> PartAction {
        let reason = "no byte of the request body arrived for \(timeout.nanoseconds / 1_000_000_000) s (--body-timeout)"
        guard streamed == nil else {
            streamed = nil
            state = .closing
            return .abandonRequest(reason: reason)
        }
        return refuse(.requestTimeout, reason)
    }

    /// The request being received, while its body is taken whole: its head and when it arrived.
    var requestBeingReceived: (head: HTTPRequestHead, arrival: NIODeadline)? {
        guard case .receiving(let head, let arrival) = state else { return nil }
        return (head, arrival)
    }

    /// The request being received is handed on before its body ended (a large upload the
    /// recording proxy forwards as it arrives): its answer begins now, and the rest of its body
    /// comes as ``PartAction/requestBody(_:)`` and ``PartAction/requestEnd``.
    mutating func handOnUpload() {
        guard case .receiving(let head, _) = state else { return }
        beginAnswer(keepAlive: head.keepsConnection)
        streamed = StreamedBody(kind: .upload, size: receivedBodySize)
    }

    /// Nothing was read for the idle timeout: whether to close. A connection with a response or
    /// a tunnel under way stays.
    func idleTimeoutFired() -> Bool {
        switch state {
        case .responding, .connecting, .closed: false
        case .idle, .receiving, .challenging, .closing: true
        }
    }

    /// The decoder failed: the answer now; `.none` when it waits for the answers before it; nil to
    /// close without one (the connection is closing anyway, or the error is not a parse error).
    mutating func decodingFailed(_ error: any Error) -> PartAction? {
        guard let parserError = error as? HTTPParserError else { return nil }
        switch state {
        case .closing, .closed: return nil
        case .idle, .receiving, .challenging, .connecting, .responding: break
        }
        let (status, reason): (HTTPResponse.Status, String) = parserError == .headerOverflow
            ? (.requestHeaderFieldsTooLarge, Self.headersTooLarge)
            : (.badRequest, "malformed request: \(parserError)")
        if isResponding || !waiting.isEmpty {
            waiting.append(.parseFailure(status, reason: reason))
            return PartAction.none
        }
        return refuse(status, reason)
    }

    /// The body being received could not be kept (its spool failed: a full disk, say): answered
    /// 500 with `reason`, and the connection closes.
    mutating func bodyNotKept(_ reason: String) -> PartAction {
        refuse(.internalServerError, reason)
    }

    // MARK: the request cycle

    private mutating func take(_ part: HTTPServerRequestPart, now: NIODeadline) -> PartAction {
        switch (part, state) {
        case (.head(let head), .idle):
            return start(head, now: now)
        case (.body(let chunk), .receiving):
            receivedBodySize += chunk.readableBytes
            guard receivedBodySize <= maxBodySize else {
                return refuse(.contentTooLarge, "the request body is over the limit of \(maxBodySize) bytes (--max-body)")
            }
            return .collect(chunk)
        case (.end, .receiving(let head, let arrival)):
            beginAnswer(keepAlive: head.keepsConnection)
            return .respond(head, arrival: arrival)
        case (.end, .challenging(let keepAlive, let toAdmin)):
            beginAnswer(keepAlive: keepAlive)
            return .challenge(toAdmin: toAdmin)
        case (.end, .connecting(let host, let port)):
            beginAnswer(keepAlive: true)
            return .planTunnel(host: host, port: port)
        case (.body, .connecting), (.body, .challenging), (_, .closing), (_, .closed), (.body, .idle), (.end, .idle):
            return .none
        case (.head, _), (.body, _), (.end, _):
            return refuse(.badRequest, "unexpected request part")
        }
    }

    private mutating func start(_ head: HTTPRequestHead, now: NIODeadline) -> PartAction {
        var head = head
        isHTTP2Stream = head.version.major >= 2
        isHTTP10 = head.version == .http1_0
        // HTTP/1.1's decoder holds its heads to the same limit.
        if isHTTP2Stream, head.headerListSize > ServerPipeline.maxHeaderListSize {
            return refuse(.requestHeaderFieldsTooLarge, Self.headersTooLarge)
        }
        if let proxyAuthentication {
            switch proxyAuthentication.admit(&head) {
            case .admitted:
                break
            case .challenged(let toAdmin) where head.expectsContinue:
                // The client waits before sending its body: answer now, and close, since the body
                // it may still send would otherwise be read as the next request.
                beginAnswer(closing: true)
                return .challenge(toAdmin: toAdmin)
            case .challenged(let toAdmin):
                state = .challenging(keepAlive: head.keepsConnection, toAdmin: toAdmin)
                return .none
            }
        }
        if head.method == .CONNECT {
            guard !isTunnel, let (host, port) = Self.connectTarget(head.uri) else {
                return refuse(.badRequest, "CONNECT needs host:port")
            }
            state = .connecting(host: host, port: port)
            return .none
        }
        if let coding = head.unimplementedTransferCoding {
            return refuse(.notImplemented, "the transfer coding \(coding) is not implemented (only chunked is)")
        }
        if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBodySize {
            return refuse(.contentTooLarge,
                          "the request body of \(length) bytes is over the limit of \(maxBodySize) bytes (--max-body)")
        }
        if isHTTP2Stream, GRPCCall.isGRPC(contentType: head.headers.first(name: "Content-Type")) {
            beginAnswer(keepAlive: true)
            streamed = StreamedBody(kind: .call, size: 0)
            return .respondStreaming(head, arrival: now)
        }
        state = .receiving(head, arrival: now)
        receivedBodySize = 0
        if head.expectsContinue {
            // The client waits for this before sending its body; a request refused early (413 above) never gets it.
            return .sendContinue(head.version)
        }
        return .none
    }

    /// A part of the body of a request handed on early (the answer may be under way already).
    private mutating func takeStreamed(_ part: HTTPServerRequestPart, _ body: StreamedBody) -> PartAction {
        switch part {
        case .body(let chunk):
            guard body.size + chunk.readableBytes <= maxBodySize else {
                streamed = nil
                state = .closing
                let reason = "the request body is over the limit of \(maxBodySize) bytes (--max-body)"
                // An upload's answer may be under way: all that is left is to cut it.
                return body.kind == .call ? .refuseCall(reason: reason) : .abandonRequest(reason: reason)
            }
            streamed?.size += chunk.readableBytes
            return .requestBody(chunk)
        case .end:
            streamed = nil
            return .requestEnd
        case .head:
            // A stream carries one request.
            streamed = nil
            return .abandonRequest(reason: "a second request head on one stream")
        }
    }

    private mutating func refuse(_ status: HTTPResponse.Status, _ reason: String) -> PartAction {
        beginAnswer(closing: true)
        return .refuse(status, reason: reason)
    }

    private static let headersTooLarge = "the request headers are over the size limit of \(ServerPipeline.maxHeaderListSize) bytes"

    /// Starts the next numbered answer.
    private mutating func beginAnswer(keepAlive: Bool = true, closing: Bool = false) {
        answer += 1
        headWritten = false
        state = closing ? .closing : .responding(keepAlive: keepAlive && !isQuiescing)
    }

    /// The host and port of a `CONNECT host:port` (or `[v6]:port`); nil unless both are there.
    static func connectTarget(_ authority: String) -> (host: String, port: Int)? {
        let (host, port) = RequestTarget.splitAuthority(Substring(authority))
        guard let port, (1...65535).contains(port), !host.isEmpty else { return nil }
        return (host, port)
    }
}

extension HTTPRequestHead {
    /// Whether the connection stays after the answer: HTTP/1.1 unless `Connection: close`, HTTP/1.0
    /// with `keep-alive`, and always for an HTTP/2 stream (the connection outlives its streams).
    var keepsConnection: Bool {
        version.major >= 2 || isKeepAlive
    }

    /// A transfer coding besides `chunked` that the body is in (`Transfer-Encoding: gzip, chunked`),
    /// which Tapedeck would otherwise take for the body's own bytes, recorded and forwarded without
    /// its coding; RFC 9112 section 6.1 asks for 501.
    var unimplementedTransferCoding: Substring? {
        headers[canonicalForm: "Transfer-Encoding"].first { !$0.caseInsensitiveEquals("chunked") }
    }

    /// The size of the header list as HTTP/2 counts it (RFC 9113 section 6.5.2): each field's name
    /// and value and 32 bytes more, the request target among them.
    var headerListSize: Int {
        headers.reduce(uri.utf8.count + 32) { $0 + $1.name.utf8.count + $1.value.utf8.count + 32 }
    }

    /// Whether the client waits for `100 Continue` before sending its body.
    var expectsContinue: Bool {
        headers[canonicalForm: "Expect"].contains { $0.caseInsensitiveEquals("100-continue") }
    }
}
