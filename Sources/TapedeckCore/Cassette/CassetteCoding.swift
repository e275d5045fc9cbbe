import Foundation

// The Codable forms of the cassette types, with the key names of CassetteKeys.swift. Bodies need the cassette's ``SideFiles``
// (in the coder's userInfo) to read and write large bodies beside the cassette.

extension KeyedDecodingContainer {
    /// Reads an optional body: absent means empty; otherwise exactly one of text, base64, json, file.
    func decodeBody(forKey key: Key, sideFiles: SideFiles?) throws -> Body {
        guard contains(key) else { return .empty }
        let body = try nestedContainer(keyedBy: BodyCodingKey.self, forKey: key)
        let present = BodyCodingKey.forms.filter(body.contains)
        guard present.count == 1, let form = present.first else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "a body has exactly one of \"text\", \"base64\", \"json\", \"file\" or \"grpc\"")
        }
        var decoded = try Self.bodyForm(form, in: body, sideFiles: sideFiles)
        if try body.decodeIfPresent(Bool.self, forKey: .encoded) == true {
            guard decoded.style == .automatic else {
                throw DecodingError.dataCorruptedError(forKey: .encoded, in: body,
                                                       debugDescription: "a \"json\" or \"grpc\" body cannot be \"encoded\"")
            }
            decoded.isEncoded = true
        }
        return decoded
    }

    /// The bytes of one body form.
    private static func bodyForm(_ form: BodyCodingKey, in body: KeyedDecodingContainer<BodyCodingKey>,
                                 sideFiles: SideFiles?) throws -> Body {
        switch form {
        case .encoded:
            preconditionFailure("not a body form")
        case .text:
            return Body(Data(try body.decode(String.self, forKey: .text).utf8))
        case .base64:
            let encoded = try body.decode(String.self, forKey: .base64)
            guard let data = Data(base64Encoded: encoded) else {
                throw DecodingError.dataCorruptedError(forKey: .base64, in: body, debugDescription: "not valid base64")
            }
            return Body(data)
        case .json:
            return Body(try body.decode(JSONValue.self, forKey: .json).compactData, style: .json)
        case .grpc:
            let messages = try body.decode([GRPCMessage].self, forKey: .grpc)
            var decoded = Body(GRPCMessage.frame(messages), style: .grpc)
            decoded.messageTimes = GRPCCall.times(of: messages)
            return decoded
        case .file:
            let name = try body.decode(String.self, forKey: .file)
            do {
                guard let sideFiles else { throw SideFileError.noFolder(name) }
                return Body(file: try sideFiles.reference(name))
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .file, in: body, debugDescription: "\(error)")
            }
        }
    }
}

extension KeyedEncodingContainer {
    /// Writes a body unless it is empty: text, base64, json as read, or a side file when large.
    fileprivate mutating func encodeBody(_ value: Body, forKey key: Key, sideFiles: SideFiles?) throws {
        guard !value.isEmpty else { return }
        var body = nestedContainer(keyedBy: BodyCodingKey.self, forKey: key)
        if value.isEncoded { try body.encode(true, forKey: .encoded) }
        if let path = sideFiles?.place(value) {
            try body.encode(path, forKey: .file)
        } else if value.style == .json, !value.isEncoded, let json = JSONValue(parsing: value.data) {
            try body.encode(json, forKey: .json)
        } else if value.style == .grpc, !value.isEncoded, let messages = GRPCMessage.split(value.data) {
            try body.encode(GRPCCall.timed(messages, value.messageTimes), forKey: .grpc)
        } else if let text = value.text {
            try body.encode(text, forKey: .text)
        } else {
            try body.encode(value.data.base64EncodedString(), forKey: .base64)
        }
    }
}

extension Decoder {
    fileprivate var sideFiles: SideFiles? { userInfo[.tapedeckSideFiles] as? SideFiles }
}

extension Encoder {
    fileprivate var sideFiles: SideFiles? { userInfo[.tapedeckSideFiles] as? SideFiles }
}

extension CassetteRequest: Codable {
    private typealias CodingKeys = RequestCodingKey

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = try container.decode(String.self, forKey: .method)
        url = try container.decode(String.self, forKey: .url)
        headers = try container.decodeIfPresent(HeaderList.self, forKey: .headers) ?? [:]
        body = try container.decodeBody(forKey: .body, sideFiles: decoder.sideFiles)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(method, forKey: .method)
        try container.encode(url, forKey: .url)
        try container.encode(headers, forKey: .headers)
        try container.encodeBody(body, forKey: .body, sideFiles: encoder.sideFiles)
    }
}

extension CassetteResponse: Codable {
    private typealias CodingKeys = ResponseCodingKey

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(Int.self, forKey: .status)
        guard AnswerStatusRule.recorded.contains(status) else {
            throw DecodingError.dataCorruptedError(forKey: .status, in: container,
                                                   debugDescription: "status \(status) is not between 100 and 599")
        }
        headers = try container.decodeIfPresent(HeaderList.self, forKey: .headers) ?? [:]
        body = try container.decodeBody(forKey: .body, sideFiles: decoder.sideFiles)
        trailers = try container.decodeIfPresent(HeaderList.self, forKey: .trailers)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(headers, forKey: .headers)
        try container.encodeBody(body, forKey: .body, sideFiles: encoder.sideFiles)
        try container.encodeIfPresent(trailers, forKey: .trailers)
    }
}

extension Timing: Codable {
    private typealias CodingKeys = TimingCodingKey

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        firstByteMs = try container.decodeMilliseconds(forKey: .firstByteMs)
        totalMs = try container.decodeMilliseconds(forKey: .totalMs)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(firstByteMs, forKey: .firstByteMs)
        try container.encode(totalMs, forKey: .totalMs)
    }
}

extension StreamChunk: Codable {
    private typealias CodingKeys = ChunkCodingKey

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        atMs = try container.decodeMilliseconds(forKey: .atMs)
        if let text = try container.decodeIfPresent(String.self, forKey: .text) {
            data = Data(text.utf8)
        } else if let encoded = try container.decodeIfPresent(String.self, forKey: .base64),
                  let decoded = Data(base64Encoded: encoded) {
            data = decoded
        } else {
            throw DecodingError.dataCorruptedError(forKey: .text, in: container,
                                                   debugDescription: "a chunk has \"text\" or valid \"base64\"")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(atMs, forKey: .atMs)
        if let text = String(validatingUTF8Data: data) {
            try container.encode(text, forKey: .text)
        } else {
            try container.encode(data.base64EncodedString(), forKey: .base64)
        }
    }
}

extension Interaction: Codable {
    private typealias CodingKeys = InteractionCodingKey

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recordedAt = try container.decodeIfPresent(String.self, forKey: .recordedAt)
        request = try container.decode(CassetteRequest.self, forKey: .request)
        response = try container.decode(CassetteResponse.self, forKey: .response)
        timing = try container.decodeIfPresent(Timing.self, forKey: .timing)
        delayMs = try container.decodeDelayIfPresent(forKey: .delayMs)
        chunks = try container.decodeIfPresent([StreamChunk].self, forKey: .chunks)
        if response.body.messageTimes != nil {
            guard chunks == nil else {
                throw DecodingError.dataCorruptedError(forKey: .chunks, in: container,
                                                       debugDescription: "a gRPC answer paced by its messages' atMs has no \"chunks\"")
            }
            GRPCCall.pacedAsChunks(&self)
        }
        httpVersion = try container.decodeIfPresent(String.self, forKey: .httpVersion)
        if let httpVersion, !["1.0", "1.1", "2"].contains(httpVersion) {
            throw DecodingError.dataCorruptedError(forKey: .httpVersion, in: container,
                                                   debugDescription: "httpVersion \"\(httpVersion)\" is not \"1.0\", \"1.1\" or \"2\"")
        }
        websocket = try container.decodeIfPresent([WebSocketMessage].self, forKey: .websocket)
        if let refusal = AnswerStatusRule.refusal(status: response.status, hasConversation: websocket != nil) {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: container.codingPath + [CodingKeys.response, ResponseCodingKey.status], debugDescription: refusal))
        }
    }

    public func encode(to encoder: Encoder) throws {
        let interaction = GRPCCall.foldingChunks(self)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try interaction.encodeMembers(into: &container)
    }

    private func encodeMembers(into container: inout KeyedEncodingContainer<CodingKeys>) throws {
        try container.encodeIfPresent(recordedAt, forKey: .recordedAt)
        try container.encode(request, forKey: .request)
        try container.encode(response, forKey: .response)
        try container.encodeIfPresent(timing, forKey: .timing)
        try container.encodeIfPresent(delayMs, forKey: .delayMs)
        try container.encodeIfPresent(chunks, forKey: .chunks)
        try container.encodeIfPresent(httpVersion, forKey: .httpVersion)
        try container.encodeIfPresent(websocket, forKey: .websocket)
    }
}

extension Cassette: Decodable {
    private typealias CodingKeys = CassetteCodingKey

    /// Reads a cassette, refusing an unknown version before looking at anything else. A file
    /// with only `stubs` (a stub file) needs no `interactions`.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == Cassette.formatVersion else { throw CassetteError(file: nil, kind: .unsupportedVersion(version)) }
        meta = try container.decodeIfPresent(CassetteMeta.self, forKey: .meta) ?? CassetteMeta()
        if container.contains(.stubs) {
            stubsJSON = try container.decode([JSONValue].self, forKey: .stubs)
            stubs = zip(try container.decode([Stub].self, forKey: .stubs), stubsJSON).map { stub, json in
                var stub = stub
                stub.definition = json
                return stub
            }
            interactions = try container.decodeIfPresent([Interaction].self, forKey: .interactions) ?? []
        } else {
            interactions = try container.decode([Interaction].self, forKey: .interactions)
        }
    }
}

extension KeyedDecodingContainer {
    /// Decodes a time in milliseconds (a timing, a chunk's or message's offset, a hand-set delay),
    /// refusing a negative one (nothing happens before the moment it is measured from) and one
    /// above `maximum` when there is one.
    func decodeMillisecondsIfPresent(forKey key: Key, atMost maximum: Double = .infinity) throws -> Double? {
        guard let milliseconds = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard milliseconds.isFinite, (0...maximum).contains(milliseconds) else {
            let range = maximum.isFinite ? "from 0 to \(Int(maximum))" : "0 or more"
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "\(key.stringValue) must be a number of milliseconds \(range), not \(milliseconds)")
        }
        return milliseconds
    }

    /// ``decodeMillisecondsIfPresent(forKey:atMost:)`` for a time that must be there.
    func decodeMilliseconds(forKey key: Key) throws -> Double {
        guard let milliseconds = try decodeMillisecondsIfPresent(forKey: key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "\(key.stringValue) is required"))
        }
        return milliseconds
    }

    /// Decodes a hand-set delay in milliseconds, from 0 to ``LatencyModel/maximumDelayMilliseconds``.
    func decodeDelayIfPresent(forKey key: Key) throws -> Double? {
        try decodeMillisecondsIfPresent(forKey: key, atMost: LatencyModel.maximumDelayMilliseconds)
    }
}
