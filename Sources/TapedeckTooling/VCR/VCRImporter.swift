import Foundation
import TapedeckCore
import Yams

/// What a VCR import produced.
package struct VCRImportResult: Sendable {
    /// Which layout the file had.
    package var flavor: VCRFlavor
    /// The cassette, one interaction per recorded one, in order.
    package var cassette: Cassette
    /// Every redaction applied: `interactions[2]: request header Authorization`.
    package var changes: [String]
}

/// Turns Ruby VCR, vcrpy and go-vcr cassettes into Tapedeck cassettes, so teams can move over.
///
/// The layout is recognised from the file. Bodies are exact (base64 and `!!binary` included); a
/// body still gzip- or deflate-compressed, as the tools record by default, is decoded (the header
/// is kept, replay encodes again), and one that does not decode is kept as it was and marked so;
/// hop-by-hop headers are left out and the redaction rules applied. Only go-vcr records timing.
package struct VCRImporter: Sendable {
    /// The redaction applied to every interaction.
    package let redaction: CassetteRedaction

    /// Creates an importer applying these rules.
    package init(rules: RedactionRules = .defaults) {
        redaction = CassetteRedaction(rules: rules)
    }

    /// Reads and converts a YAML file.
    package func importFile(_ file: URL) throws(ToolingError) -> VCRImportResult {
        let data = try InputFile.read(file)
        guard let text = String(data: data, encoding: .utf8) else {
            throw ToolingError(file: file.path, kind: .badInput(path: "", message: "not UTF-8 text"))
        }
        return try importYAML(text, file: file.path)
    }

    /// Converts YAML text; `file` names the input in errors.
    package func importYAML(_ text: String, file: String?) throws(ToolingError) -> VCRImportResult {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ToolingError(file: file, kind: .badInput(path: "", message: "not valid YAML: \(error)"))
        }
        if root?["meta"] != nil, root?["version"]?.int == Cassette.formatVersion {
            throw ToolingError(file: file, kind: .badInput(path: "", message: "already a Tapedeck cassette; nothing to import"))
        }
        let reader = Reader(file: file)
        let flavor: VCRFlavor
        let list: Node
        if let node = root?["http_interactions"] {
            (flavor, list) = (.rubyVCR, node)
        } else if let node = root?["interactions"] {
            (flavor, list) = (try Self.flavor(of: node, version: root?["version"], file: file), node)
        } else {
            let what = root?.mapping != nil ? "a mapping without http_interactions or interactions" : "not a mapping"
            throw ToolingError(file: file, kind: .badInput(
                path: "", message: "not a cassette layout Tapedeck knows (\(what)); known: \(VCRFlavor.knownLayouts); "
                    + "HAR files (browsers, mitmproxy, Polly.js, Insomnia) go through `tapedeck har import`"))
        }
        let listName = flavor == .rubyVCR ? "http_interactions" : "interactions"
        guard let sequence = list.sequence else {
            if list.null != nil { return finish(flavor: flavor, interactions: [], root: root) }
            throw reader.error(listName, "expected a list of interactions")
        }
        var interactions: [Interaction] = []
        for (index, node) in sequence.enumerated() {
            let place = "\(listName)[\(index)]"
            interactions.append(flavor == .goVCR ? try reader.goVCRInteraction(node, place: place)
                                                 : try reader.interaction(node, place: place))
        }
        return finish(flavor: flavor, interactions: interactions, root: root)
    }

    /// vcrpy or go-vcr, from the first interaction's request (`uri` or `url`), else the version;
    /// a go-vcr format version other than 1 or 2 is refused by name.
    private static func flavor(of list: Node, version: Node?, file: String?) throws(ToolingError) -> VCRFlavor {
        let request = list.sequence?.first?["request"]
        let flavor: VCRFlavor
        if request?["url"] != nil && request?["uri"] == nil {
            flavor = .goVCR
        } else if request == nil {
            flavor = version?.int == 2 ? .goVCR : .vcrpy
        } else {
            flavor = .vcrpy
        }
        if flavor == .goVCR, let number = version?.int, number != 1 && number != 2 {
            throw ToolingError(file: file, kind: .badInput(
                path: "version", message: "go-vcr cassette format version \(number) is not known: go-vcr v1 and v2 write "
                    + "version 1, v3 and v4 write version 2"))
        }
        return flavor
    }

    private func finish(flavor: VCRFlavor, interactions: [Interaction], root: Node?) -> VCRImportResult {
        let source = root?["recorded_with"]?.string ?? flavor.rawValue
        let meta = CassetteMeta(createdAt: interactions.first?.recordedAt ?? Timestamp.now(),
                                recordedWith: "tapedeck \(TapedeckRelease.version) import-vcr from \(source)")
        let (cassette, changes) = redaction.apply(to: Cassette(meta: meta, interactions: interactions))
        return VCRImportResult(flavor: flavor, cassette: cassette, changes: changes)
    }

    /// Reads the nodes of one file, with errors that name the place.
    private struct Reader {
        let file: String?

        func error(_ place: String, _ message: String) -> ToolingError {
            ToolingError(file: file, kind: .badInput(path: place, message: message))
        }

        func interaction(_ node: Node, place: String) throws(ToolingError) -> Interaction {
            guard let request = node["request"] else { throw error("\(place).request", "required field is missing") }
            guard let response = node["response"] else { throw error("\(place).response", "required field is missing") }
            guard let method = request["method"]?.string, !method.isEmpty else {
                throw error("\(place).request.method", "required field is missing")
            }
            guard let uri = request["uri"]?.string, !uri.isEmpty else {
                throw error("\(place).request.uri", "required field is missing (vcrpy layout; known layouts: \(VCRFlavor.knownLayouts))")
            }
            // vcrpy's older httpx layout: `status_code`, `content`, `http_version`.
            let httpxLayout = response["status_code"] != nil
            let status = try self.status(httpxLayout ? response["status_code"] : response["status"],
                                         place: "\(place).response.\(httpxLayout ? "status_code" : "status")")
            var responseHeaders = try headers(response["headers"], place: "\(place).response.headers")
            let rawBody = httpxLayout ? try body(response["content"], place: "\(place).response.content")
                                      : try body(response["body"], place: "\(place).response.body")
            let responseBody = ImportedBody.response(rawBody, headers: &responseHeaders, decodedByTool: false)
            return Interaction(
                recordedAt: node["recorded_at"]?.string.flatMap(Self.timestamp),
                request: CassetteRequest(method: method.uppercased(), url: uri,
                                         headers: try headers(request["headers"], place: "\(place).request.headers"),
                                         body: Body(try body(request["body"], place: "\(place).request.body"))),
                response: CassetteResponse(status: status, headers: responseHeaders, body: responseBody))
        }

        /// A go-vcr interaction: request `url` and `body`, response `code` (or `status: "200 OK"`),
        /// `body` and `duration` (the time to the response head), which becomes the timing.
        func goVCRInteraction(_ node: Node, place: String) throws(ToolingError) -> Interaction {
            guard let request = node["request"] else { throw error("\(place).request", "required field is missing") }
            guard let response = node["response"] else { throw error("\(place).response", "required field is missing") }
            guard let method = request["method"]?.string, !method.isEmpty else {
                throw error("\(place).request.method", "required field is missing")
            }
            guard let url = request["url"]?.string, !url.isEmpty else {
                throw error("\(place).request.url", "required field is missing")
            }
            let status: Int
            if let code = response["code"] {
                status = try self.status(code, place: "\(place).response.code")
            } else if let text = response["status"]?.string, let code = Int(text.prefix(while: \.isNumber)) {
                status = try self.status(Node(String(code), Tag(.int)), place: "\(place).response.status")
            } else {
                throw error("\(place).response.code", "required field is missing")
            }
            var responseHeaders = try headers(response["headers"], place: "\(place).response.headers")
            let rawBody = try body(response["body"], place: "\(place).response.body")
            let responseBody = ImportedBody.response(rawBody, headers: &responseHeaders, decodedByTool: false)
            let timing = try response["duration"].map { node throws(ToolingError) in
                let milliseconds = try goDuration(node, place: "\(place).response.duration")
                return Timing(firstByteMs: milliseconds, totalMs: milliseconds)
            }
            return Interaction(
                request: CassetteRequest(method: method.uppercased(), url: url,
                                         headers: try headers(request["headers"], place: "\(place).request.headers"),
                                         body: Body(try body(request["body"], place: "\(place).request.body"))),
                response: CassetteResponse(status: status, headers: responseHeaders, body: responseBody),
                timing: timing)
        }

        /// A Go `time.Duration` in milliseconds: as text (`460.639208ms`, `2.08s`, `1m3s`, `0s`) or nanoseconds.
        func goDuration(_ node: Node, place: String) throws(ToolingError) -> Double {
            if let nanoseconds = node.int { return Double(nanoseconds) / 1_000_000 }
            guard let text = node.string, let milliseconds = GoDuration.milliseconds(text) else {
                throw error(place, "not a Go duration such as 460.6ms or 2.1s")
            }
            return milliseconds
        }

        /// `status: {code: 200, message: OK}`, or a bare number as old vcrpy wrote.
        func status(_ node: Node?, place: String) throws(ToolingError) -> Int {
            guard let node else { throw error(place, "required field is missing") }
            let code = node.mapping != nil ? node["code"]?.int : node.int
            guard let code else { throw error(node.mapping != nil ? "\(place).code" : place, "expected a status code number") }
            guard AnswerStatusRule.recorded.contains(code) else { throw error(place, "status \(code) is not between 100 and 599") }
            // A VCR file holds no WebSocket conversation.
            if let refusal = AnswerStatusRule.refusal(status: code, hasConversation: false) { throw error(place, refusal) }
            return code
        }

        /// A mapping from name to a list of values (or one value); hop-by-hop headers are left out.
        func headers(_ node: Node?, place: String) throws(ToolingError) -> HeaderList {
            guard let node, node.null == nil else { return [:] }
            guard let mapping = node.mapping else { throw error(place, "expected a mapping from header name to values") }
            var list = HeaderList()
            for (key, value) in mapping {
                guard let name = key.string else { throw error(place, "a header name is not text") }
                if let values = value.sequence {
                    for item in values {
                        guard let text = item.string else { throw error("\(place).\(name)", "a header value is not text") }
                        list.append(name: name, value: text)
                    }
                } else if value.null == nil, let text = value.string {
                    list.append(name: name, value: text)
                }
            }
            list.removeHopByHop()
            if let unsafe = list.firstUnsafeField { throw error(place, HeaderList.unsafeReason(unsafe)) }
            return list
        }

        /// A body: null, text, `!!binary`, or a mapping with `string` or `base64_string`.
        func body(_ node: Node?, place: String) throws(ToolingError) -> Data {
            guard let node else { return Data() }
            if node.mapping != nil {
                if let encoded = node["base64_string"] {
                    guard let text = encoded.string,
                          let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                        throw error("\(place).base64_string", "not valid base64")
                    }
                    return data
                }
                return try body(node["string"], place: "\(place).string")
            }
            guard node.scalar != nil else { throw error(place, "expected text, binary or a mapping with string") }
            let tag = node.tag.rawValue
            if node.null != nil { return Data() }
            if tag == Tag.Name.binary.rawValue || tag == "!binary" {
                guard let text = node.scalar?.string,
                      let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                    throw error(place, "!!binary value is not valid base64")
                }
                return data
            }
            return Data((node.scalar?.string ?? "").utf8)
        }

        /// `Sat, 21 Nov 2026 05:08:32 GMT` (Ruby VCR) as a cassette timestamp.
        static func timestamp(_ text: String) -> String? {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "yyyy-MM-dd HH:mm:ss Z", "yyyy-MM-dd'T'HH:mm:ssZ"] {
                formatter.dateFormat = format
                if let date = formatter.date(from: text) { return Timestamp.iso8601(date) }
            }
            return nil
        }
    }
}
