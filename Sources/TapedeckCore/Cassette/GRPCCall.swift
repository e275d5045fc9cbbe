import Foundation

/// What makes an exchange a gRPC call, and how a recorded call is kept (SPEC section 12): each
/// rule once, for the recording proxy, the replay server and the connector.
package enum GRPCCall {
    /// Whether a Content-Type names gRPC: `application/grpc` or a variant (`+proto`, `+json`).
    package static func isGRPC(contentType: String?) -> Bool {
        // `application/grpc`, alone or before `+format` or `;parameters`, in any letter case; read
        // in place, byte by byte (asked of every request and response, most of them not gRPC).
        guard let contentType else { return false }
        let type = contentType.utf8.prefix { $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: ";") }
        return Substring(type).caseInsensitiveEquals("application/grpc")
    }

    /// Whether a request is a gRPC call.
    package static func isGRPC(_ request: CassetteRequest) -> Bool {
        isGRPC(contentType: request.headers["Content-Type"])
    }

    /// The call's deadline from its `grpc-timeout` header (`"200m"`: at most 8 digits and a unit,
    /// H, M, S, m, u or n); nil when there is none or it does not parse.
    package static func deadline(grpcTimeout: String?) -> Duration? {
        guard let grpcTimeout, let unit = grpcTimeout.last, (2...9).contains(grpcTimeout.count),
              let amount = Int64(grpcTimeout.dropLast()), amount >= 0 else { return nil }
        switch unit {
        case "H": return .seconds(amount * 3600)
        case "M": return .seconds(amount * 60)
        case "S": return .seconds(amount)
        case "m": return .milliseconds(amount)
        case "u": return .microseconds(amount)
        case "n": return .nanoseconds(amount)
        default: return nil
        }
    }

    /// The trailers of a call that ran past its deadline, as a server reports it: `DEADLINE_EXCEEDED`.
    package static let deadlineExceeded: HeaderList = ["grpc-status": "4", "grpc-message": "Deadline Exceeded"]

    /// What a gRPC client cannot read in a recorded answer's status, or nil when it reads it (or
    /// the answer is not gRPC's). A client takes its call's outcome from exactly one `grpc-status`,
    /// a decimal code, in the trailers (or the head of a trailers-only answer); without one, or
    /// with two, grpcio and grpc-swift end the call as broken (INTERNAL or UNKNOWN) whatever the
    /// recording meant. `tapedeck lint` reports it; replay serves the answer as it stands.
    package static func statusProblem(of response: CassetteResponse) -> String? {
        guard isGRPC(contentType: response.headers["Content-Type"]) else { return nil }
        let statuses = (response.trailers ?? HeaderList()).values(for: "grpc-status") + response.headers.values(for: "grpc-status")
        guard let status = statuses.first else {
            return "a gRPC answer with no grpc-status in its trailers: a client ends the call as broken (INTERNAL or UNKNOWN)"
        }
        guard statuses.count == 1 else {
            return "grpc-status is given \(statuses.count) times (\(DecodingMessage.shortened(statuses.joined(separator: ", ")))): a client reads exactly one"
        }
        guard statusCode(status) != nil else {
            return "grpc-status \"\(DecodingMessage.shortened(status))\" is not a status code (a decimal number, 0 for OK)"
        }
        return nil
    }

    /// The code a `grpc-status` value gives, as gRPC's clients read it: a decimal number, digits
    /// only (no sign, no spaces); nil for anything else.
    package static func statusCode(_ value: String) -> Int? {
        guard !value.isEmpty, value.utf8.count <= 9, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int(value)
    }

    /// A trailers-only answer (an error with no message: one HEADERS frame holding the status)
    /// split into the head it is replayed with, its Content-Type alone, and its trailers (the
    /// status and every other field but the length, all trailing metadata), as a client reads it. Nil when the
    /// headers are not a gRPC trailers-only answer's (no `grpc-status` in them).
    package static func splitTrailersOnly(_ headers: HeaderList) -> (head: HeaderList, trailers: HeaderList)? {
        guard isGRPC(contentType: headers["Content-Type"]), headers.contains("grpc-status") else { return nil }
        var head = HeaderList()
        var trailers = HeaderList()
        for field in headers {
            if field.name.caseInsensitiveEquals("Content-Type") {
                head.append(name: field.name, value: field.value)
            } else if !field.name.caseInsensitiveEquals("Content-Length") {
                trailers.append(name: field.name, value: field.value)
            }
        }
        return (head, trailers)
    }

    /// Keeps the interaction's gRPC bodies as message lists (`{"grpc": [...]}`), compressed
    /// messages decompressed (``decompressed(_:encoding:)``). In place: the recording proxy asks
    /// it of every exchange, most of them not gRPC, and a copy of the interaction each time cost more.
    package static func keepMessages(in interaction: inout Interaction) {
        if isGRPC(interaction.request) {
            interaction.request.body = keptAsMessages(interaction.request.body, encoding: interaction.request.headers["grpc-encoding"])
        }
        let response = interaction.response.headers
        if isGRPC(contentType: response["Content-Type"]) {
            let encoding = response["grpc-encoding"]
            interaction.response.body = keptAsMessages(interaction.response.body, encoding: encoding)
            interaction.chunks = interaction.chunks?.map { StreamChunk(atMs: $0.atMs, data: decompressed($0.data, encoding: encoding)) }
        }
    }

    /// A body kept as its messages, decompressed, with their times; one in a side file (a large
    /// body) stays as it is, and so does one held as messages already (``Body/Style/grpc``: the
    /// servers decompress a request's as it arrives, to match it). Decompressed a second time, a
    /// message whose content is itself gzip data (a file sent over gRPC) was stored inflated.
    private static func keptAsMessages(_ body: Body, encoding: String?) -> Body {
        guard body.file == nil, !body.isEncoded, body.style != .grpc else { return body }
        var kept = Body(decompressed(body.data, encoding: encoding), style: .grpc)
        kept.messageTimes = body.messageTimes
        return kept
    }

    // MARK: compressed messages (grpc-encoding)

    /// gRPC bodies are held, stored and matched with every message decompressed, its compressed
    /// flag kept (`"compressed": true` in a cassette): compressors differ, the messages do not.
    /// A message that does not decompress with `encoding` (gzip or deflate) stays as it came.
    package static func decompressed(_ body: Data, encoding: String?) -> Data {
        guard let coding = ContentCoding(header: encoding), let messages = GRPCMessage.split(body),
              messages.contains(where: \.compressed) else { return body }
        return GRPCMessage.frame(messages.map { message in
            guard message.compressed, let plain = try? coding.decode(message.bytes) else { return message }
            return GRPCMessage(bytes: plain, compressed: true)
        })
    }

    /// A held body as it goes on the wire: flagged messages compressed with `encoding`, or sent
    /// uncompressed (flag cleared) when it is nil, for a client that does not accept the recorded one.
    package static func compressed(_ body: Data, encoding: String?) -> Data {
        guard let messages = GRPCMessage.split(body), messages.contains(where: \.compressed) else { return body }
        let coding = ContentCoding(header: encoding)
        return GRPCMessage.frame(messages.map { message in
            guard message.compressed else { return message }
            guard let coding, let squeezed = try? coding.encode(message.bytes) else { return GRPCMessage(bytes: message.bytes, compressed: false) }
            return GRPCMessage(bytes: squeezed, compressed: true)
        })
    }

    /// Whether a client that sent `acceptEncoding` (its `grpc-accept-encoding`) takes messages in `encoding`.
    package static func accepts(_ acceptEncoding: String?, _ encoding: String) -> Bool {
        (acceptEncoding ?? "").split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).caseInsensitiveEquals(encoding) }
    }

    // MARK: streamed answers: messages with atMs in the file, chunks of one message each in memory

    /// A streamed answer as it was read from the upstream, in pieces, regrouped as its messages,
    /// each timed by the piece its last byte came in: a body when there is one message (nothing to
    /// pace), chunks of one message each when there are more. Nil when the framing does not hold.
    package static func recordedAnswer(_ pieces: [StreamChunk]) -> (body: Data, chunks: [StreamChunk]?)? {
        guard let messages = messages(acrossPieces: pieces) else { return nil }
        guard messages.count > 1 else { return (pieces.reduce(into: Data()) { $0.append($1.data) }, nil) }
        return (Data(), messages.map { StreamChunk(atMs: $0.atMs ?? 0, data: GRPCMessage.frame([$0])) })
    }

    /// The messages framed across `pieces` (a body received piece by piece, each with its time),
    /// each with the time of the piece its last byte came in; nil when the framing does not hold.
    /// One rule for an answer read from the upstream and a request forwarded as it arrived.
    package static func messages(acrossPieces pieces: [StreamChunk]) -> [GRPCMessage]? {
        var joined = Data()
        var pieceEnds: [(end: Int, atMs: Double)] = []
        for piece in pieces {
            joined.append(piece.data)
            pieceEnds.append((joined.count, piece.atMs))
        }
        guard let messages = GRPCMessage.split(joined) else { return nil }
        var (end, piece) = (0, 0)
        return messages.map { message in
            end += 5 + message.bytes.count  // the 5-byte prefix, then the message as it came
            while pieceEnds[piece].end < end { piece += 1 }
            var timed = message
            timed.atMs = pieceEnds[piece].atMs
            return timed
        }
    }

    /// The times of messages read from a cassette; nil when none has one. A message without one
    /// takes the one before it's (the first, 0).
    package static func times(of messages: [GRPCMessage]) -> [Double]? {
        guard messages.contains(where: { $0.atMs != nil }) else { return nil }
        var last = 0.0
        return messages.map { message in
            last = message.atMs ?? last
            return last
        }
    }

    /// `messages` with `times` as their atMs, when there is one time for each.
    package static func timed(_ messages: [GRPCMessage], _ times: [Double]?) -> [GRPCMessage] {
        guard let times, times.count == messages.count else { return messages }
        return zip(messages, times).map { message, atMs in
            var timed = message
            timed.atMs = atMs
            return timed
        }
    }

    /// An answer whose messages were read with atMs, held as chunks of one message each, which
    /// replay paces as it paces any stream.
    package static func pacedAsChunks(_ interaction: inout Interaction) {
        let body = interaction.response.body
        guard let times = body.messageTimes, let messages = GRPCMessage.split(body.data), times.count == messages.count else {
            interaction.response.body.messageTimes = nil
            return
        }
        interaction.chunks = zip(messages, times).map { StreamChunk(atMs: $1, data: GRPCMessage.frame([$0])) }
        interaction.response.body = Body(Data(), style: .grpc)
    }

    /// The interaction as a cassette writes it: a gRPC answer held as chunks of one message each
    /// is written as its messages with their atMs; any other stays as it is.
    package static func foldingChunks(_ interaction: Interaction) -> Interaction {
        guard let chunks = interaction.chunks, !chunks.isEmpty, interaction.response.body.isEmpty,
              isGRPC(contentType: interaction.response.headers["Content-Type"]),
              chunks.allSatisfy({ GRPCMessage.split($0.data)?.count == 1 }) else { return interaction }
        var folded = interaction
        folded.chunks = nil
        var body = Body(chunks.reduce(into: Data()) { $0.append($1.data) }, style: .grpc)
        body.messageTimes = chunks.map(\.atMs)
        folded.response.body = body
        return folded
    }
}
