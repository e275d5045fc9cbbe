import Foundation

/// Reversible secrets: each value stands in a cassette as `<NAME>`, and goes back into requests
/// sent to the live service, so re-recording works with live credentials while no cassette
/// ever holds them (VCR's `filter_sensitive_data`).
///
/// Unlike redaction, which is scoped to a header, a parameter or a JSON path, a secret is replaced
/// wherever its value appears: header values, the URL (as it is and percent-encoded), bodies and
/// stream chunks, in requests and responses. That is why a value must be at least
/// ``minimumLength`` characters: a short one would replace ordinary text.
///
/// ```swift
/// let secrets = try Secrets(["API_KEY": ProcessInfo.processInfo.environment["API_KEY"]!])
/// let stored = secrets.conceal(interaction)        // "<API_KEY>" wherever the key was
/// let live = secrets.reveal(stored.request)         // the real key again, for the upstream
/// ```
public struct Secrets: Sendable, Hashable {
    /// The shortest value accepted.
    public static let minimumLength = 6

    /// Each secret's name and value, sorted by name.
    public let entries: [(name: String, value: String)]
    /// The hosts each secret may be revealed to (lowercased), for those bound to hosts.
    public let boundHosts: [String: Set<String>]

    /// No secrets.
    public static let none = Secrets(checked: [])

    /// Where a secret bound to no host of its own may have its value revealed.
    public enum Home: Sendable, Hashable {
        /// To any host: the in-process connector, which no other program can send requests through.
        case anyHost
        /// To this host only: a reverse proxy's `--target`.
        case host(String)
        /// Nowhere: a forward proxy, through which any page may send requests to any host.
        case nowhere
    }

    /// Secrets by name; names are letters, digits and `_`. A secret named in `hosts` is revealed
    /// only in requests to those hosts (``revealable(to:home:)``).
    ///
    /// - Throws: ``SecretsError`` for a bad name or a value shorter than ``minimumLength``.
    public init(_ values: [String: String], hosts: [String: [String]] = [:]) throws(SecretsError) {
        var entries: [(String, String)] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw .badName(name)
            }
            guard value.count >= Self.minimumLength else { throw .tooShort(name: name, length: value.count) }
            entries.append((name, value))
        }
        self.init(checked: entries, boundHosts: hosts.mapValues { Set($0.map { $0.lowercased() }) })
    }

    /// Secrets from `NAME=ENVVAR` or `NAME=ENVVAR@HOST[,HOST]` specifications, each value read from `environment`.
    ///
    /// - Throws: ``SecretsError`` for a malformed specification, an unset variable or a bad value.
    public init(specifications: [String], environment: [String: String]) throws(SecretsError) {
        var values: [String: String] = [:]
        var hosts: [String: [String]] = [:]
        for specification in specifications {
            let parts = specification.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else { throw .badSpecification(specification) }
            var variable = parts[1]
            if let at = variable.firstIndex(of: "@") {
                let named = variable[variable.index(after: at)...].split(separator: ",").map(String.init)
                guard !named.isEmpty, !named.contains(where: \.isEmpty) else { throw .badSpecification(specification) }
                hosts[parts[0]] = named
                variable = String(variable[..<at])
            }
            guard let value = environment[variable], !value.isEmpty else { throw .unset(name: parts[0], variable: variable) }
            values[parts[0]] = value
        }
        try self.init(values, hosts: hosts)
    }

    private init(checked entries: [(name: String, value: String)], boundHosts: [String: Set<String>] = [:]) {
        self.entries = entries
        self.boundHosts = boundHosts
    }

    /// The secrets whose values may go in a request to `host`: each one bound to that host, and
    /// each one bound to none when `home` allows it. The others' placeholders stay as written.
    public func revealable(to host: String?, home: Home) -> Secrets {
        guard !isEmpty else { return self }
        let host = host?.lowercased()
        let kept = entries.filter { entry in
            if let bound = boundHosts[entry.name] { return host.map(bound.contains) ?? false }
            switch home {
            case .anyHost: return true
            case .host(let home): return host == home.lowercased()
            case .nowhere: return false
            }
        }
        return kept.count == entries.count ? self : Secrets(checked: kept, boundHosts: boundHosts)
    }

    /// The names of the secrets whose placeholder `text` holds: for a log line when they were kept from a host.
    public func placeholders(in text: String) -> [String] {
        entries.map(\.name).filter { text.contains(Self.placeholder($0)) }
    }

    /// Whether there are no secrets.
    public var isEmpty: Bool { entries.isEmpty }

    /// The stand-in for a secret's value: `<NAME>`.
    public static func placeholder(_ name: String) -> String { "<\(name)>" }

    /// The interaction with every secret value replaced by its placeholder, request and response.
    public func conceal(_ interaction: consuming Interaction) -> Interaction {
        guard !isEmpty else { return interaction }
        var result = interaction
        // A gRPC answer's pieces are framed messages, replaced message by message as its body is;
        // told by the Content-Type as recorded, before any value in it is replaced.
        let layout: Layout = GRPCCall.isGRPC(contentType: result.response.headers["Content-Type"]) ? .grpcHeld : .plain
        result.request = conceal(result.request)
        result.response.headers = replacing(in: result.response.headers, pairs: concealing)
        result.response.trailers = result.response.trailers.map { replacing(in: $0, pairs: concealing) }
        result.response.body = replacing(in: result.response.body, pairs: concealing)
        result.chunks = result.chunks?.map { chunk in
            StreamChunk(atMs: chunk.atMs, data: replacing(in: chunk.data, pairs: concealing, as: layout))
        }
        result.websocket = result.websocket?.map { message in
            var message = message
            message.content = conceal(message.content)
            return message
        }
        return result
    }

    /// A WebSocket message with every secret value replaced by its placeholder.
    public func conceal(_ content: WebSocketMessage.Content) -> WebSocketMessage.Content {
        guard !isEmpty else { return content }
        switch content {
        case .text(let text): return .text(replacing(in: text, pairs: concealing))
        case .binary(let data): return .binary(replacing(in: data, pairs: concealing))
        case .close: return content
        }
    }

    /// The request with every secret value replaced by its placeholder: what it looks like in a cassette.
    public func conceal(_ request: CassetteRequest) -> CassetteRequest {
        isEmpty ? request : transform(request, pairs: concealing)
    }

    /// The request with every placeholder replaced by its secret's value: what the live service receives.
    public func reveal(_ request: CassetteRequest) -> CassetteRequest {
        isEmpty ? request : transform(request, pairs: revealing)
    }

    /// RFC 3986's unreserved characters: what percent-encoding leaves as it is.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Text with every placeholder replaced by its secret's value.
    public func revealing(_ text: String) -> String {
        isEmpty ? text : replacing(in: text, pairs: revealing)
    }

    /// Bytes with every placeholder replaced by its secret's value. `asGRPCMessages`: the bytes are
    /// a gRPC body as it goes on the wire, replaced message by message and framed again with each
    /// message's new length. A message the wire carries compressed with `encoding` (the call's
    /// `grpc-encoding`) is searched decompressed; when it held a placeholder it goes on uncompressed,
    /// its flag cleared (gRPC lets any message of a call go so), otherwise as it came.
    public func revealing(_ data: Data, asGRPCMessages: Bool = false, encoding: String? = nil) -> Data {
        guard !isEmpty else { return data }
        return replacing(in: data, pairs: revealing, as: asGRPCMessages ? .grpcOnTheWire(ContentCoding(header: encoding)) : .plain)
    }

    /// The replacement of every secret value by its placeholder in a body read piece by piece (a
    /// side file past ``Body/wholeReadLimit``, as the recording proxy installs it); nil when there
    /// are no secrets.
    package func concealingStream() -> StreamingReplacement? {
        isEmpty ? nil : StreamingReplacement(concealing)
    }

    /// (value, placeholder) pairs, the value also percent-encoded as a query would carry it; longest values first.
    private var concealing: [(String, String)] {
        entries.flatMap { entry -> [(String, String)] in
            let placeholder = Self.placeholder(entry.name)
            var pairs = [(entry.value, placeholder)]
            if let encoded = entry.value.addingPercentEncoding(withAllowedCharacters: Self.unreserved), encoded != entry.value {
                pairs.append((encoded, placeholder))
            }
            return pairs
        }.sorted { $0.0.count > $1.0.count }
    }

    /// (placeholder, value) pairs.
    private var revealing: [(String, String)] {
        entries.map { (Self.placeholder($0.name), $0.value) }
    }

    private func transform(_ request: CassetteRequest, pairs: [(String, String)]) -> CassetteRequest {
        var result = request
        result.url = replacing(in: request.url, pairs: pairs)
        result.headers = replacing(in: request.headers, pairs: pairs)
        result.body = replacing(in: request.body, pairs: pairs)
        return result
    }

    /// The body with every pair replaced; a side file past ``Body/wholeReadLimit`` is not searched
    /// here (the recording proxy replaces the values in it as it installs it, ``concealingStream()``),
    /// and one without any of the values stays a side file.
    private func replacing(in body: Body, pairs: [(String, String)]) -> Body {
        guard !body.isEmpty, body.isReadableWhole else { return body }
        let data = body.data
        let replaced = replacing(in: data, pairs: pairs, as: body.style == .grpc ? .grpcHeld : .plain)
        guard replaced != data else { return body }
        var result = body
        result.data = replaced
        return result
    }

    /// How the bytes searched are laid out.
    private enum Layout {
        /// Bytes as they are.
        case plain
        /// gRPC messages as a cassette holds them: each one's bytes decompressed.
        case grpcHeld
        /// gRPC messages as the wire carries them: those flagged compressed are compressed with
        /// this coding (nil when the call names none this server reads).
        case grpcOnTheWire(ContentCoding?)
    }

    /// The bytes with every pair replaced. gRPC messages are replaced inside each and framed again
    /// with their new lengths (a placeholder and its value differ in length, so replacing across
    /// the framing would break it); bytes whose framing does not hold are replaced as they are.
    private func replacing(in data: Data, pairs: [(String, String)], as layout: Layout) -> Data {
        if case .plain = layout { return replacing(in: data, pairs: pairs) }
        guard var messages = GRPCMessage.split(data) else { return replacing(in: data, pairs: pairs) }
        for index in messages.indices {
            messages[index] = replacing(in: messages[index], pairs: pairs, as: layout)
        }
        return GRPCMessage.frame(messages)
    }

    /// One gRPC message with every pair replaced inside it. A message compressed on the wire is
    /// searched decompressed and, when something was replaced, goes on uncompressed; one whose
    /// coding is not known or whose bytes do not decompress is left as it is.
    private func replacing(in message: GRPCMessage, pairs: [(String, String)], as layout: Layout) -> GRPCMessage {
        guard case .grpcOnTheWire(let coding) = layout, message.compressed else {
            var replaced = message
            replaced.bytes = replacing(in: message.bytes, pairs: pairs)
            return replaced
        }
        guard let coding, let plain = try? coding.decode(message.bytes) else { return message }
        let replaced = replacing(in: plain, pairs: pairs)
        return replaced == plain ? message : GRPCMessage(bytes: replaced, compressed: false)
    }

    private func replacing(in text: String, pairs: [(String, String)]) -> String {
        pairs.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    private func replacing(in headers: HeaderList, pairs: [(String, String)]) -> HeaderList {
        var result = headers
        result.mapValues { replacing(in: $0.value, pairs: pairs) }
        return result
    }

    /// The bytes with every pair replaced: the same ``StreamingReplacement`` a side file too large
    /// to read whole goes through, given the whole body as one piece.
    private func replacing(in data: Data, pairs: [(String, String)]) -> Data {
        var replacement = StreamingReplacement(pairs)
        var result = replacement.update(data)
        result.append(replacement.finish())
        return result
    }

    public static func == (lhs: Secrets, rhs: Secrets) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.name == $1.name && $0.value == $1.value } && lhs.boundHosts == rhs.boundHosts
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.name)
            hasher.combine(entry.value)
        }
        hasher.combine(boundHosts)
    }
}

/// A secret that cannot be used.
public enum SecretsError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A name other than letters, digits and `_`.
    case badName(String)
    /// A value shorter than ``Secrets/minimumLength``: it would replace ordinary text.
    case tooShort(name: String, length: Int)
    /// A `--secret` that is not `NAME=ENVVAR`.
    case badSpecification(String)
    /// The environment variable is not set or empty.
    case unset(name: String, variable: String)

    public var description: String {
        switch self {
        case .badName(let name):
            return "secret name \"\(name)\" must be letters, digits and _ (it stands in cassettes as <NAME>)"
        case .tooShort(let name, let length):
            return "secret \(name) is \(length) characters long; at least \(Secrets.minimumLength) are needed, since a shorter value would replace ordinary text"
        case .badSpecification(let specification):
            return "--secret \"\(specification)\" is not NAME=ENVVAR or NAME=ENVVAR@HOST[,HOST]"
        case .unset(let name, let variable):
            return "secret \(name): the environment variable \(variable) is not set"
        }
    }
}
