import Foundation

extension APIContract {
    /// Every way a recorded exchange breaks the document: its path and method, its parameters
    /// (path, query, headers), its request body, its status and its answer's body, in that order.
    /// `index` is the interaction's place in its cassette, carried by each violation.
    public func violations(of interaction: Interaction, at index: Int) -> [ContractViolation] {
        violations(of: interaction.request, answeredWith: interaction).map { violation in
            var placed = violation
            placed.interaction = index
            return placed
        }
    }

    /// Every way a request breaks the document, and the answer it got when given (the response
    /// of `answer`, checked against the operation the request fits): how a server checks what
    /// it served.
    public func violations(of request: CassetteRequest, answeredWith answer: Interaction? = nil) -> [ContractViolation] {
        switch fit(method: request.method.uppercased(), path: request.target.path) {
        case .none(let missing):
            return [missing]
        case .operation(let operation, let pathValues):
            return parameterViolations(operation, request: request, pathValues: pathValues)
                + requestBodyViolations(operation, request: request)
                + (answer.map { responseViolations(operation, interaction: $0) } ?? [])
        }
    }

    /// How an interaction's answer breaks the operation its request fits (nothing when none fits).
    public func answerViolations(of interaction: Interaction) -> [ContractViolation] {
        let request = interaction.request
        guard case .operation(let operation, _) = fit(method: request.method.uppercased(), path: request.target.path) else { return [] }
        return responseViolations(operation, interaction: interaction)
    }

    private func parameterViolations(_ operation: APIOperation, request: CassetteRequest,
                                     pathValues: [String: String]) -> [ContractViolation] {
        let query = request.target.query.map { FormURLEncoding.pairs(Substring($0)) } ?? []
        var found: [ContractViolation] = []
        for parameter in operation.parameters {
            let place = "\(parameter.location) \(parameter.name)"
            let values: [String]
            switch parameter.location {
            case "path": values = pathValues[parameter.name].map { [$0] } ?? []
            case "query": values = query.filter { $0.name == parameter.name }.map(\.value)
            // OpenAPI describes these three by other means, and ignores them as parameters.
            case "header" where ["accept", "content-type", "authorization"].contains(parameter.name.lowercased()): continue
            case "header": values = request.headers.values(for: parameter.name)
            default: continue
            }
            guard !values.isEmpty else {
                if parameter.isRequired { found.append(ContractViolation(interaction: 0, side: .request, place: place, message: "required, missing")) }
                continue
            }
            guard let schema = parameter.schema else { continue }
            for violation in schema.validate(Self.parameterValue(values, types: parameter.types)) {
                found.append(ContractViolation(interaction: 0, side: .request, place: place, path: Self.inner(violation.path),
                                               message: violation.message))
            }
        }
        return found
    }

    private func requestBodyViolations(_ operation: APIOperation, request: CassetteRequest) -> [ContractViolation] {
        let body = request.body
        guard let documented = operation.requestBody else {
            guard !body.isEmpty else { return [] }
            return [ContractViolation(interaction: 0, side: .request, place: "body", message: "\(operation.name) takes no body in the document")]
        }
        guard !body.isEmpty else {
            guard documented.isRequired else { return [] }
            return [ContractViolation(interaction: 0, side: .request, place: "body", message: "required, missing")]
        }
        return bodyViolations(side: .request, body: body, contentType: request.headers["Content-Type"], content: documented.content)
    }

    private func responseViolations(_ operation: APIOperation, interaction: Interaction) -> [ContractViolation] {
        let status = interaction.response.status
        let keys = ["\(status)", "\(status / 100)XX", "DEFAULT"]
        guard let key = keys.first(where: { operation.responses[$0] != nil }), let content = operation.responses[key] else {
            let documented = operation.responses.keys.sorted().joined(separator: ", ")
            return [ContractViolation(interaction: 0, side: .response, place: "status",
                                      message: "\(status) is not documented for \(operation.name) (documented: \(documented))")]
        }
        let body = interaction.chunks == nil ? interaction.response.body : Body(interaction.responseBodyData)
        guard !body.isEmpty else { return [] }
        guard let content else {
            return [ContractViolation(interaction: 0, side: .response, place: "body", message: "the document gives a \(key) answer no body")]
        }
        return bodyViolations(side: .response, body: body, contentType: interaction.response.headers["Content-Type"], content: content)
    }

    /// The media type against the documented ones, then a JSON body against its schema. A body
    /// larger than ``Body/wholeReadLimit`` has only its media type checked.
    private func bodyViolations(side: ContractViolation.Side, body: Body, contentType: String?,
                                content: APIOperation.Content) -> [ContractViolation] {
        let mediaType = contentType.map(Self.mediaType) ?? ""
        let candidates = [mediaType, mediaType.split(separator: "/").first.map { "\($0)/*" } ?? "", "*/*"]
        guard let documented = candidates.first(where: { content.mediaTypes[$0] != nil }) else {
            let listed = content.mediaTypes.keys.sorted().joined(separator: ", ")
            return [ContractViolation(interaction: 0, side: side, place: "header Content-Type",
                                      message: "\(mediaType.isEmpty ? "none" : mediaType) is not documented (documented: \(listed))")]
        }
        guard case .some(.some(let schema)) = content.mediaTypes[documented], Self.isJSON(mediaType), body.isReadableWhole else {
            return []
        }
        guard let value = JSONValue(parsing: body.data) else {
            return [ContractViolation(interaction: 0, side: side, place: "body", message: "not JSON, though its media type is \(mediaType)")]
        }
        return schema.validate(value).map { violation in
            ContractViolation(interaction: 0, side: side, place: "body", path: violation.path.description, message: violation.message)
        }
    }

    /// `application/json; charset=utf-8` gives `application/json`.
    private static func mediaType(_ header: String) -> String {
        String(header.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Whether a media type is JSON: `application/json`, or any `+json`.
    package static func isJSON(_ mediaType: String) -> Bool {
        mediaType == "application/json" || mediaType.hasSuffix("+json")
    }

    /// A path inside a parameter's value, nil at its top (the parameter is named already).
    private static func inner(_ path: JSONPath) -> String? {
        path.segments.isEmpty ? nil : path.description
    }

    /// A parameter's text as the JSON value its schema's types ask for: a number, a boolean, or a
    /// list (repeated, or one comma-separated value); text that does not read so stays text, and
    /// the schema says what is wrong with it.
    static func parameterValue(_ values: [String], types: Set<String>) -> JSONValue {
        if types.contains("array") {
            let items = values.count == 1 ? values[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init) : values
            return .array(items.map(scalar))
        }
        return scalar(values[0], types: types)
    }

    private static func scalar(_ text: String) -> JSONValue {
        scalar(text, types: ["integer", "number", "boolean"])
    }

    private static func scalar(_ text: String, types: Set<String>) -> JSONValue {
        if types.contains("integer"), let integer = Int64(text) { return .integer(integer) }
        if types.contains("number"), let number = Double(text), number.isFinite { return .double(number) }
        if types.contains("boolean"), text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }
}
