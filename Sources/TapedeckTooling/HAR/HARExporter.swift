import Foundation
import TapedeckCore

/// What a HAR export produced: the document and the redactions applied on the way.
package struct HARExportResult: Sendable {
    /// The HAR document.
    package var document: HARDocument
    /// Every redaction applied: `interactions[2]: request header Authorization`.
    package var changes: [String]
}

/// Turns a cassette into a HAR 1.2 document that browsers' tools and HAR viewers open: decoded text,
/// base64 content for other bytes, timings from `firstByteMs`/`totalMs`, redaction applied first.
///
/// What HAR has no place for travels in custom `_` fields (`_recordedAt`, `_chunks`, `_delayMs`,
/// `_originForm`, `_noTiming`, `_stillEncoded`), so cassette → HAR → cassette gives the same interactions.
package struct HARExporter: Sendable {
    /// The redaction applied before export.
    package let redaction: CassetteRedaction

    /// Creates an exporter applying these rules.
    package init(rules: RedactionRules = .defaults) {
        redaction = CassetteRedaction(rules: rules)
    }

    /// The HAR form of a cassette. A JSON side file past 32 MiB is redacted piece by piece into a
    /// scratch folder, read into the document from there, and removed.
    package func export(_ cassette: Cassette) throws(ToolingError) -> HARExportResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-har-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (redacted, changes) = try redaction.apply(to: cassette, largeBodiesInto: { _ in scratch })
        let fallbackStart = cassette.meta.createdAt ?? "1970-01-01T00:00:00.000Z"
        let entries = redacted.interactions.map { entry(for: $0, fallbackStart: fallbackStart) }
        let log = HARLog(creator: HARCreator(name: "tapedeck", version: TapedeckRelease.version), entries: entries)
        return HARExportResult(document: HARDocument(log: log), changes: changes)
    }

    /// The document as pretty JSON with sorted keys, so exports diff well.
    package func encode(_ document: HARDocument) throws(ToolingError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(document) + Data("\n".utf8)
        } catch {
            throw ToolingError(file: nil, kind: .io("cannot encode HAR: \(error)"))
        }
    }

    private func entry(for interaction: Interaction, fallbackStart: String) -> HAREntry {
        let total = interaction.timing?.totalMs ?? 0
        let first = interaction.timing?.firstByteMs ?? 0
        let started = interaction.recordedAt.flatMap(HARDates.parse).map { HARDates.format($0, plusMilliseconds: -total) }
            ?? fallbackStart
        // The conversation is timed from the upgrade: the end of the handshake's timing.
        let upgraded = HARDates.parse(started)?.addingTimeInterval(total / 1000) ?? Date(timeIntervalSince1970: 0)
        return HAREntry(
            startedDateTime: started, time: total,
            request: request(interaction.request), response: response(interaction),
            timings: HARTimings(send: 0, wait: first, receive: max(0, total - first)),
            recordedAt: interaction.recordedAt, delayMs: interaction.delayMs, chunks: interaction.chunks,
            noTiming: interaction.timing == nil ? true : nil, noHTTPVersion: interaction.httpVersion == nil ? true : nil,
            webSocketMessages: interaction.websocket?.map { HARWebSocketMessage($0, upgraded: upgraded) })
    }

    private func request(_ request: CassetteRequest) -> HARRequest {
        let target = request.target
        var url = request.url
        var originForm: Bool?
        if !target.namesHost {
            url = "http://\(request.headers["Host"] ?? "localhost")\(request.url)"
            originForm = true
        }
        var postData: HARPostData?
        if !request.body.isEmpty {
            let mimeType = request.headers["Content-Type"] ?? "application/octet-stream"
            let (text, encoding) = Self.text(of: request.body.data)
            let params = mimeType.lowercased().hasPrefix("application/x-www-form-urlencoded") && encoding == nil
                ? Self.pairs(text).map { HARParam(name: $0.name, value: $0.value) } : nil
            postData = HARPostData(mimeType: mimeType, text: text, params: params, encoding: encoding)
        }
        return HARRequest(method: request.method, url: url, headers: Self.pairs(request.headers),
                          queryString: Self.pairs(target.query ?? ""),
                          cookies: request.headers.values(for: "Cookie").flatMap(Self.cookies(in:)),
                          postData: postData, bodySize: request.body.data.count, originForm: originForm)
    }

    private func response(_ interaction: Interaction) -> HARResponse {
        let response = interaction.response
        let body = interaction.responseBodyData
        let (text, encoding) = Self.text(of: body)
        let coding = response.headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let decodable = coding.isEmpty || coding == "identity" || response.contentCoding != nil
        var wireSize = body.count
        if let contentCoding = response.contentCoding, let wire = try? contentCoding.encode(body) { wireSize = wire.count }
        let content = HARContent(size: body.count, compression: wireSize != body.count ? body.count - wireSize : nil,
                                 mimeType: response.headers["Content-Type"] ?? "", text: body.isEmpty ? nil : text,
                                 encoding: encoding, stillEncoded: decodable ? nil : true)
        return HARResponse(status: response.status, statusText: HTTPReasonPhrase.phrase(for: response.status),
                           headers: Self.pairs(response.headers),
                           cookies: response.headers.values(for: "Set-Cookie").compactMap { Self.cookies(in: $0).first },
                           content: content, redirectURL: response.headers["Location"] ?? "", bodySize: wireSize,
                           httpVersion: interaction.httpVersion, trailers: response.trailers.map(Self.pairs))
    }

    /// UTF-8 text as it is, anything else as base64.
    static func text(of data: Data) -> (String, String?) {
        if let text = String(data: data, encoding: .utf8) { return (text, nil) }
        return (data.base64EncodedString(), "base64")
    }

    static func pairs(_ headers: HeaderList) -> [HARNameValue] {
        headers.map { HARNameValue(name: $0.name, value: $0.value) }
    }

    /// Query or form pairs, percent-decoded (`+` is a space).
    static func pairs(_ encoded: String) -> [HARNameValue] {
        encoded.split(separator: "&", omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return HARNameValue(name: decode(pieces[0]), value: pieces.count > 1 ? decode(pieces[1]) : "")
        }
    }

    /// `a=1; b=2` as cookie pairs; for Set-Cookie, the first pair is the cookie.
    private static func cookies(in header: String) -> [HARNameValue] {
        header.split(separator: ";").compactMap { part in
            let pieces = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            guard let name = pieces.first, !name.isEmpty else { return nil }
            return HARNameValue(name: String(name), value: pieces.count > 1 ? String(pieces[1]) : "")
        }
    }
}
