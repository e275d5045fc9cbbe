import Foundation
import TapedeckCore

/// What a HAR import produced: the cassette, the entries left out and the redactions applied.
package struct HARImportResult: Sendable {
    /// The cassette, one interaction per usable entry, in order.
    package var cassette: Cassette
    /// Entries left out and why, such as a request the browser never completed (status 0).
    package var skipped: [String]
    /// Every redaction applied: `interactions[2]: request header Authorization`.
    package var changes: [String]
}

/// Turns a HAR 1.2 file into a cassette: bodies decoded (base64 content included), the timings
/// turned into `firstByteMs`/`totalMs`, hop-by-hop and HTTP/2 pseudo-headers left out, and the
/// redaction rules applied before anything is written.
package struct HARImporter: Sendable {
    /// The redaction applied to every interaction.
    package let redaction: CassetteRedaction

    /// Creates an importer applying these rules.
    package init(rules: RedactionRules = .defaults) {
        redaction = CassetteRedaction(rules: rules)
    }

    /// Reads and converts a HAR file.
    package func importFile(_ file: URL) throws(ToolingError) -> HARImportResult {
        let data = try InputFile.read(file)
        return try importData(data, file: file.path)
    }

    /// Converts HAR bytes; `file` names the input in errors.
    package func importData(_ data: Data, file: String?) throws(ToolingError) -> HARImportResult {
        let document: HARDocument
        let data = InputFile.withoutByteOrderMark(data)
        do {
            document = try JSONDecoder().decode(HARDocument.self, from: data)
        } catch {
            let (path, message) = DecodingFailure.describe(error, in: data, document: .har)
            throw ToolingError(file: file, kind: .badInput(path: path, message: message))
        }
        return try convert(document, file: file)
    }

    /// Converts a decoded HAR document.
    package func convert(_ document: HARDocument, file: String?) throws(ToolingError) -> HARImportResult {
        var interactions: [Interaction] = []
        var skipped: [String] = []
        let writtenByTapedeck = document.log.creator.name == "tapedeck"
        let polly = PollyContent(creator: document.log.creator)
        for (index, entry) in document.log.entries.enumerated() {
            let place = "log.entries[\(index)]"
            guard AnswerStatusRule.recorded.contains(entry.response.status) else {
                skipped.append("\(place): \(entry.request.method) \(entry.request.url): status \(entry.response.status) "
                               + "(the request never completed)")
                continue
            }
            let made = try interaction(from: entry, place: place, file: file, writtenByTapedeck: writtenByTapedeck, polly: polly)
            if let refusal = AnswerStatusRule.refusal(status: made.response.status, hasConversation: made.websocket != nil) {
                skipped.append("\(place): \(entry.request.method) \(entry.request.url): \(refusal)")
                continue
            }
            interactions.append(made)
        }
        let creator = document.log.creator
        let meta = CassetteMeta(createdAt: interactions.first?.recordedAt ?? Timestamp.now(),
                                recordedWith: "tapedeck \(TapedeckRelease.version) har import from \(creator.name) \(creator.version)")
        let (cassette, changes) = redaction.apply(to: Cassette(meta: meta, interactions: interactions))
        return HARImportResult(cassette: cassette, skipped: skipped, changes: changes)
    }

    /// One entry as an interaction; a file tapedeck wrote carries `recordedAt` exactly (absent when the cassette had none).
    private func interaction(from entry: HAREntry, place: String, file: String?, writtenByTapedeck: Bool,
                             polly: PollyContent?) throws(ToolingError) -> Interaction {
        // Chrome names a WebSocket's handshake by its ws:// or wss:// URL; the cassette keeps the HTTP one.
        var url = entry.request.url
        if let colon = url.firstIndex(of: ":") {
            url = WebSocketMessage.handshakeScheme(String(url[..<colon])) + url[colon...]
        }
        let target = RequestTarget(url)
        guard let scheme = target.scheme, scheme == "http" || scheme == "https", target.host?.isEmpty == false else {
            throw ToolingError(file: file, kind: .badInput(path: "\(place).request.url",
                                                           message: "\"\(entry.request.url)\" is not an absolute http(s) or ws(s) URL"))
        }
        if let hash = url.firstIndex(of: "#") { url = String(url[..<hash]) }
        if entry.request.originForm == true {
            url = target.path + (target.query.map { "?\($0)" } ?? "")
        }
        var requestHeaders = try Self.headers(entry.request.headers, place: "\(place).request.headers", file: file)
        let requestBody = try Self.requestBody(entry.request.postData, place: "\(place).request.postData", file: file)
        if !requestBody.isEmpty, !requestHeaders.contains("Content-Type"), let mimeType = entry.request.postData?.mimeType,
           !mimeType.isEmpty {
            requestHeaders.append(name: "Content-Type", value: mimeType)
        }
        var responseHeaders = try Self.headers(entry.response.headers, place: "\(place).response.headers", file: file)
        let content = entry.response.content
        let textPlace = "\(place).response.content.text"
        let pollyBytes = try polly?.bytes(of: content, contentEncoded: responseHeaders.contains("Content-Encoding"),
                                          place: textPlace, file: file)
        let bytes: Data
        if let pollyBytes {
            bytes = pollyBytes
        } else {
            bytes = try Self.decodeText(content.text, encoding: content.encoding, place: textPlace, file: file)
        }
        let responseBody = ImportedBody.response(bytes, headers: &responseHeaders, decodedByTool: pollyBytes == nil,
                                                 stillEncoded: content.stillEncoded == true)
        let recordedAt = writtenByTapedeck ? entry.recordedAt : entry.recordedAt
            ?? HARDates.parse(entry.startedDateTime).map { HARDates.format($0, plusMilliseconds: max(0, entry.time)) }
        let trailers = try entry.response.trailers.map { pairs throws(ToolingError) in
            try Self.headers(pairs, place: "\(place).response._trailers", file: file)
        }
        let response = CassetteResponse(status: entry.response.status, headers: responseHeaders,
                                        body: entry.chunks == nil ? responseBody : .empty, trailers: trailers)
        let upgraded = HARDates.parse(entry.startedDateTime)?.addingTimeInterval(max(0, entry.time) / 1000) ?? Date(timeIntervalSince1970: 0)
        var websocket: [WebSocketMessage]?
        if let messages = entry.webSocketMessages {
            websocket = []
            for (number, message) in messages.enumerated() {
                do {
                    if let kept = try message.message(upgraded: upgraded) { websocket?.append(kept) }
                } catch {
                    throw ToolingError(file: file, kind: .badInput(path: "\(place)._webSocketMessages[\(number)]", message: error.reason))
                }
            }
        }
        return Interaction(recordedAt: recordedAt,
                           request: CassetteRequest(method: entry.request.method.uppercased(), url: url,
                                                    headers: requestHeaders, body: Body(requestBody)),
                           response: response,
                           timing: entry.noTiming == true ? nil : Self.timing(of: entry),
                           delayMs: entry.delayMs, chunks: entry.chunks, httpVersion: entry.noHTTPVersion == true ? nil : Self.httpVersion(entry.response.httpVersion),
                           websocket: websocket)
    }

    /// The cassette's `httpVersion` for a HAR one (`HTTP/2`, `h2`, `HTTP/1.1`...); nil when unknown.
    static func httpVersion(_ har: String?) -> String? {
        switch har?.lowercased() {
        case "http/2", "http/2.0", "h2", "h2c": "2"
        case "http/1.1": "1.1"
        case "http/1.0": "1.0"
        default: nil
        }
    }

    /// Headers a cassette keeps: no HTTP/2 pseudo-headers (`:authority`), no hop-by-hop ones; a value
    /// given as an array (Polly.js) is one field per value. One with CR, LF or NUL is refused.
    static func headers(_ pairs: [HARNameValue], place: String, file: String?) throws(ToolingError) -> HeaderList {
        let headers = HeaderList(pairs.filter { !$0.name.hasPrefix(":") }
            .flatMap { pair in pair.values.map { HeaderField(name: pair.name, value: $0) } }).removingHopByHop
        if let unsafe = headers.firstUnsafeField {
            throw ToolingError(file: file, kind: .badInput(path: place, message: HeaderList.unsafeReason(unsafe)))
        }
        return headers
    }

    /// The request body: the text (base64 when so marked), else the form parameters encoded.
    static func requestBody(_ postData: HARPostData?, place: String, file: String?) throws(ToolingError) -> Data {
        guard let postData else { return Data() }
        if let text = postData.text {
            return try decodeText(text, encoding: postData.encoding, place: "\(place).text", file: file)
        }
        guard let params = postData.params, !params.isEmpty else { return Data() }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        return Data(params.map { "\(encode($0.name))=\(encode($0.value ?? ""))" }.joined(separator: "&").utf8)
    }

    /// Text as given, or the bytes of base64 text; Polly.js may write base64 as a JSON array of chunks.
    static func decodeText(_ text: String?, encoding: String?, place: String, file: String?) throws(ToolingError) -> Data {
        guard let text else { return Data() }
        guard encoding?.lowercased() == "base64" else { return Data(text.utf8) }
        if text.hasPrefix("["), let chunks = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) {
            var joined = Data()
            for chunk in chunks {
                guard let data = Data(base64Encoded: chunk) else {
                    throw ToolingError(file: file, kind: .badInput(path: place, message: "a base64 chunk is not valid base64"))
                }
                joined.append(data)
            }
            return joined
        }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw ToolingError(file: file, kind: .badInput(path: place, message: "encoding is base64 but the text is not valid base64"))
        }
        return data
    }

    /// `totalMs` from `time`; `firstByteMs` from the phases up to the first byte, rounded to microseconds.
    static func timing(of entry: HAREntry) -> Timing? {
        guard entry.time >= 0 else { return nil }
        let total = round(entry.time)
        guard let timings = entry.timings else { return Timing(firstByteMs: total, totalMs: total) }
        let phases = [timings.blocked, timings.dns, timings.connect, timings.send, timings.wait]
        let first = phases.reduce(0.0) { sum, phase in sum + max(0, phase ?? 0) }
        return Timing(firstByteMs: min(round(first), total), totalMs: total)
    }

    private static func round(_ milliseconds: Double) -> Double {
        (milliseconds * 1000).rounded() / 1000
    }
}
