import Foundation

/// Applies ``RedactionRules`` to interactions, replacing each secret value by `<redacted>`.
package struct Redactor: Sendable {
    /// The value that stands where a secret was.
    package static let placeholder = "<redacted>"

    /// The rules applied.
    package let rules: RedactionRules
    /// The quoted member names the JSON paths end in, searched for before parsing a body;
    /// nil when a path ends otherwise, so every JSON body is parsed.
    private let memberNames: [[UInt8]]?
    /// Which bytes a member name starts with (after its quote): a quote followed by any other
    /// byte is passed over without comparing.
    private let memberNameStarts: [Bool]

    /// Creates a redactor.
    package init(rules: RedactionRules = .defaults) {
        self.rules = rules
        var names: [[UInt8]]? = []
        for path in rules.jsonPaths {
            switch path.segments.last {
            case .key(let name), .descendant(let name): names?.append(Array("\"\(name)\"".utf8))
            default: names = nil
            }
        }
        memberNames = names
        var starts = [Bool](repeating: false, count: 256)
        for name in names ?? [] { starts[Int(name[1])] = true }
        memberNameStarts = starts
    }

    /// The interaction with every secret replaced, and a note of each place that changed.
    package func redact(_ interaction: consuming Interaction) -> (Interaction, changes: [String]) {
        var result = interaction
        var changes: [String] = []
        let requestType = result.request.headers["Content-Type"], responseType = result.response.headers["Content-Type"]
        redactHeaders(&result.request.headers, names: rules.requestHeaders, side: "request", changes: &changes)
        redactHeaders(&result.response.headers, names: rules.responseHeaders, side: "response", changes: &changes)
        if var trailers = result.response.trailers {
            redactHeaders(&trailers, names: rules.responseHeaders, side: "response trailer", changes: &changes)
            result.response.trailers = trailers
        }
        redactQuery(in: &result.request.url, changes: &changes)
        redactBody(&result.request.body, contentType: requestType, side: "request", changes: &changes)
        redactBody(&result.response.body, contentType: responseType, side: "response", changes: &changes)
        if var messages = result.websocket {
            redactMessages(&messages, changes: &changes)
            result.websocket = messages
        }
        return (result, changes)
    }

    /// The piecewise redaction for a body of `contentType` too large to redact whole (a side file
    /// past ``Body/wholeReadLimit``): JSON under JSON-path rules; nil for any other body.
    package func streamingRedaction(contentType: String?) -> JSONStreamRedactor? {
        rewritesJSON(contentType: contentType) ? JSONStreamRedactor(paths: rules.jsonPaths) : nil
    }

    /// Whether the rules may rewrite a body of `contentType`: JSON, when there are JSON-path rules.
    package func rewritesJSON(contentType: String?) -> Bool {
        !rules.jsonPaths.isEmpty && BodyKind(contentType: contentType) == .json
    }

    /// Whether a JSON body may hold a member one of the paths ends in: a cheap byte search
    /// that spares parsing bodies with no such key. Escaped text (`\u`) is always parsed.
    private func mayNameAMember(_ data: Data) -> Bool {
        guard let memberNames else { return true }
        return data.withUnsafeBytes { body in
            guard let base = body.baseAddress else { return false }
            var offset = 0
            while offset < body.count, let hit = memchr(base + offset, Int32(UInt8(ascii: "\\")), body.count - offset) {
                let position = base.distance(to: UnsafeRawPointer(hit))
                if position + 1 < body.count, body[position + 1] == UInt8(ascii: "u") { return true }
                offset = position + 2
            }
            offset = 0
            while offset + 1 < body.count, let hit = memchr(base + offset, Int32(UInt8(ascii: "\"")), body.count - offset - 1) {
                let position = base.distance(to: UnsafeRawPointer(hit))
                if memberNameStarts[Int(body[position + 1])], memberNames.contains(where: { name in
                    position + name.count <= body.count && name.withUnsafeBytes { memcmp(hit, $0.baseAddress!, name.count) } == 0
                }) {
                    return true
                }
                offset = position + 1
            }
            return false
        }
    }

    /// A JSON document with the JSON-path rules applied, and the paths that changed; nil when none did
    /// (or it is not JSON).
    private func redactingJSON(_ data: Data) -> (Data, paths: String)? {
        guard !rules.jsonPaths.isEmpty, mayNameAMember(data), var value = JSONValue(parsing: data) else { return nil }
        var changed: [String] = []
        for path in rules.jsonPaths {
            value = path.rewriting(value) { old in
                guard old != .string(Self.placeholder) else { return old }
                changed.append(path.description)
                return .string(Self.placeholder)
            }
        }
        guard !changed.isEmpty else { return nil }
        return (value.compactData, Self.pathList(changed))
    }

    /// The JSON paths that named a value, as a change tells them: each once, sorted (`$.a, $.b`).
    package static func pathList(_ paths: [String]) -> String {
        Set(paths).sorted().joined(separator: ", ")
    }

    /// WebSocket text messages that are JSON get the JSON-path rules, as JSON bodies do.
    private func redactMessages(_ messages: inout [WebSocketMessage], changes: inout [String]) {
        for index in messages.indices {
            guard case .text(let text) = messages[index].content, let (data, paths) = redactingJSON(Data(text.utf8)) else { continue }
            messages[index].content = .text(String(decoding: data, as: UTF8.self))
            changes.append("websocket message \(index) \(paths)")
        }
    }

    private func redactHeaders(_ headers: inout HeaderList, names: Set<String>, side: String, changes: inout [String]) {
        func isSecret(_ field: HeaderField) -> Bool {
            field.value != Self.placeholder && names.contains { $0.caseInsensitiveEquals(field.name) }
        }
        guard headers.fields.contains(where: isSecret) else { return }
        headers.mapValues { field in
            guard isSecret(field) else { return field.value }
            changes.append("\(side) header \(field.name)")
            return Self.placeholder
        }
    }

    private func redactQuery(in url: inout String, changes: inout [String]) {
        guard !rules.queryParameters.isEmpty, let questionMark = url.utf8.firstIndex(of: UInt8(ascii: "?")) else { return }
        let queryStart = url.index(after: questionMark)
        let fragmentStart = url[queryStart...].firstIndex(of: "#") ?? url.endIndex
        let (query, changed) = FormURLEncoding.rewritingValues(url[queryStart..<fragmentStart], of: rules.queryParameters,
                                                               to: Self.placeholder)
        guard changed else { return }
        changes.append("query parameters")
        url = String(url[..<queryStart]) + query + String(url[fragmentStart...])
    }

    private func redactBody(_ body: inout Body, contentType: String?, side: String, changes: inout [String]) {
        // A side file past the whole-read limit (a large download) was redacted as it was saved
        // (``streamingRedaction(contentType:)``, ``SideFileSpool``), or is left as it is.
        guard !body.isEmpty, body.isReadableWhole else { return }
        switch BodyKind(contentType: contentType) {
        case .json:
            guard let (data, paths) = redactingJSON(body.data) else { return }
            changes.append("\(side) body \(paths)")
            body = Body(data, style: body.style)
        case .form where side == "request":
            let text = Substring(decoding: body.data, as: UTF8.self)
            let (rewritten, changed) = FormURLEncoding.rewritingValues(text, of: rules.queryParameters, to: Self.placeholder)
            guard changed else { return }
            changes.append("\(side) form fields")
            body = Body(Data(rewritten.utf8), style: body.style)
        default:
            return
        }
    }
}
