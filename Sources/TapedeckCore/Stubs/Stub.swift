import Foundation

/// A hand-written answer for requests nobody recorded: a request pattern and a response (or a
/// closure computing one), consulted when no recorded interaction matches (SPEC section 10).
///
/// ```swift
/// let stub = Stub(name: "user by id",
///                 request: RequestPattern(method: "GET", path: "/users/{id}"),
///                 response: StubResponse(status: 200, body: Body(text: #"{"id": {{path.id}}}"#), templated: true))
/// let failing = Stub(request: RequestPattern(path: "/flaky"), response: StubResponse(fault: .reset))
/// let computed = Stub(request: RequestPattern(method: "POST", path: "/echo")) { request in
///     StubResponse(status: 200, body: request.body)
/// }
/// ```
public struct Stub: Sendable {
    /// How a stub answers.
    public enum Answer: Sendable {
        /// A response written out (templated or not).
        case response(StubResponse)
        /// A response computed from the request by Swift code.
        case compute(@Sendable (StubRequest) -> StubResponse)
    }

    /// Set when the stub is added to a ``StubSet``; the admin API and `removeStub(id:)` use it.
    public internal(set) var id: String
    /// A name for diagnoses and the journal.
    public var name: String?
    /// Lower is consulted first; 5 by default. Ties keep file order.
    public var priority: Int
    /// Applies only while its scenario is in a state, and moves it on.
    public var scenario: StubScenario?
    /// What a request must look like.
    public var request: RequestPattern
    /// The answer.
    public var answer: Answer
    /// The stub as JSON, when it was read from JSON: what the admin API lists.
    public internal(set) var definition: JSONValue?

    /// A stub answering with a response value.
    public init(name: String? = nil, priority: Int = 5, scenario: StubScenario? = nil,
                request: RequestPattern = RequestPattern(), response: StubResponse) {
        self.init(id: "", name: name, priority: priority, scenario: scenario, request: request, answer: .response(response))
    }

    /// A stub whose response Swift code computes from the request.
    public init(name: String? = nil, priority: Int = 5, scenario: StubScenario? = nil,
                request: RequestPattern = RequestPattern(), respond: @escaping @Sendable (StubRequest) -> StubResponse) {
        self.init(id: "", name: name, priority: priority, scenario: scenario, request: request, answer: .compute(respond))
    }

    init(id: String, name: String?, priority: Int, scenario: StubScenario?, request: RequestPattern, answer: Answer) {
        self.id = id
        self.name = name
        self.priority = priority
        self.scenario = scenario
        self.request = request
        self.answer = answer
    }

    /// How the stub is named in diagnoses and journals.
    public var label: String { name ?? id }

    /// How messages name a stub: `stub "flaky" (stub-4)`, or `stub stub-4` when it has no name.
    package static func naming(id: String, name: String?) -> String {
        "stub " + (name.map { "\($0.debugDescription) (\(id))" } ?? id)
    }
}

/// A scenario step: the stub applies while scenario `name` is in `state` (every scenario starts in
/// `Started`), and serving it moves the scenario to `next`.
public struct StubScenario: Sendable, Hashable, Codable {
    /// The state every scenario starts in.
    public static let started = "Started"
    /// The scenario.
    public var name: String
    /// The state in which the stub applies.
    public var state: String
    /// The state after serving it; nil keeps the state.
    public var next: String?

    /// Creates a step.
    public init(name: String, state: String = StubScenario.started, next: String? = nil) {
        self.name = name
        self.state = state
        self.next = next
    }
}

/// A broken server, simulated instead of an answer.
public enum StubFault: String, Sendable, Hashable, Codable, CaseIterable {
    /// Close the connection at once (a TCP reset where the platform allows).
    case reset
    /// Close without sending a byte.
    case empty
    /// Send the head and part of the body, then close.
    case truncate
    /// Send bytes that are not HTTP.
    case malformed
    /// On HTTP/2, reset the stream (`RST_STREAM`, `INTERNAL_ERROR`); on HTTP/1.1, as `reset`.
    case rstStream = "rst-stream"
    /// On HTTP/2, end the connection (`GOAWAY`, `INTERNAL_ERROR`, then close); on HTTP/1.1, as `reset`.
    case goaway

    /// Whether the client gets the answer's head (its status) before the break: only with `truncate`.
    package var sendsHead: Bool { self == .truncate }
}

/// What a stub answers.
public struct StubResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The headers.
    public var headers: HeaderList
    /// The body (any section-1 form, or a gRPC answer's messages).
    public var body: Body
    /// The trailing headers sent after the body (a gRPC answer's `grpc-status`); nil for none.
    public var trailers: HeaderList?
    /// A latency for this answer, in milliseconds.
    public var delayMs: Double?
    /// Expand `{{...}}` in header values and in text or JSON string values.
    public var templated: Bool
    /// Break the connection instead of answering.
    public var fault: StubFault?
    /// A scripted WebSocket conversation for an upgrade (status 101), played as a recorded one is.
    public var websocket: [WebSocketMessage]?

    /// Creates a response.
    public init(status: Int = 200, headers: HeaderList = [:], body: Body = .empty, trailers: HeaderList? = nil, delayMs: Double? = nil,
                templated: Bool = false, fault: StubFault? = nil, websocket: [WebSocketMessage]? = nil) {
        self.websocket = websocket
        self.status = status
        self.headers = headers
        self.body = body
        self.trailers = trailers
        self.delayMs = delayMs
        self.templated = templated
        self.fault = fault
    }
}

/// The request a stub sees: the request, and what its pattern captured.
public struct StubRequest: Sendable {
    /// The request.
    public let request: CassetteRequest
    /// Values captured by `{name}` in the path, the query, the headers and the form, and by regex groups.
    public let captures: [String: String]

    /// The method.
    public var method: String { request.method }
    /// The body.
    public var body: Body { request.body }
}
