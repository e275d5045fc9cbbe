import Foundation

extension APIContract {
    /// The document's answer to a request that fits one of its operations, for when no recording
    /// and no stub answers it: the lowest documented 2XX status (`2XX` counts as 200), with the
    /// example of its first media type (JSON first; the example named first in alphabetical order
    /// when there are several), else a body generated from its schema with ``seed``.
    ///
    /// The request's `Prefer` header chooses another documented answer, as Prism reads it:
    /// `code=404` a status (its range or `default` counting when it is not listed itself),
    /// `example=NAME` an example by name. Nil when the request fits no operation, one of
    /// `recorded` (recordings answer those alone), or the chosen status is not documented.
    public func answer(for request: CassetteRequest, unless recorded: Set<String> = []) -> CassetteResponse? {
        guard case .operation(let operation, _) = fit(method: request.method.uppercased(), path: request.target.path),
              !recorded.contains(operation.name) else { return nil }
        let prefer = Self.preferences(request.headers.values(for: "Prefer"))
        let status: Int
        let key: String
        if let code = prefer["code"].flatMap(Int.init) {
            guard let documented = ["\(code)", "\(code / 100)XX", "DEFAULT"].first(where: { operation.responses[$0] != nil }) else { return nil }
            (status, key) = (code, documented)
        } else {
            guard let lowest = operation.responses.keys.filter({ $0.hasPrefix("2") }).sorted().first else { return nil }
            (status, key) = (Int(lowest) ?? 200, lowest)
        }
        guard case .some(.some(let content)) = operation.responses[key],
              let mediaType = content.mediaTypes.keys.sorted(by: { (Self.isJSON($0) ? 0 : 1, $0) < (Self.isJSON($1) ? 0 : 1, $1) }).first
        else { return CassetteResponse(status: status) }
        let examples = content.examples[mediaType] ?? [:]
        let value: JSONValue?
        if let name = prefer["example"], let chosen = examples[name] {
            value = chosen
        } else if let first = examples.keys.sorted().first {
            value = examples[first]
        } else if case .some(.some(let schema)) = content.mediaTypes[mediaType] {
            value = SchemaSample(seed: seed).value(for: schema)
        } else {
            value = nil
        }
        let type = mediaType.contains("*") ? "application/octet-stream" : mediaType
        let body: Data
        switch value {
        case .string(let text)? where !Self.isJSON(mediaType): body = Data(text.utf8)
        case let value?: body = value.compactData
        case nil: body = Data()
        }
        return CassetteResponse(status: status, headers: ["Content-Type": type], body: Body(body))
    }

    /// The operations (`GET /pets/{petId}`) that some of `interactions` fit.
    public func operations(recordedIn interactions: [Interaction]) -> Set<String> {
        Set(interactions.compactMap { interaction in
            guard case .operation(let operation, _) = fit(method: interaction.request.method.uppercased(),
                                                          path: interaction.request.target.path) else { return nil }
            return operation.name
        })
    }

    /// Why no operation fits a request (`/v1/owners is not in the document`); nil when one does.
    public func misfit(_ request: CassetteRequest) -> String? {
        guard case .none(let missing) = fit(method: request.method.uppercased(), path: request.target.path) else { return nil }
        return missing.message
    }

    /// `Prefer: code=404, example=cat` as `["code": "404", "example": "cat"]`.
    private static func preferences(_ values: [String]) -> [String: String] {
        var found: [String: String] = [:]
        for value in values {
            for item in value.split(whereSeparator: { $0 == "," || $0 == ";" }) {
                let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2 { found[parts[0].lowercased()] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            }
        }
        return found
    }
}
