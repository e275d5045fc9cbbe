import Foundation
import TapedeckCore

/// An OpenAPI 3.1 document written from recorded traffic (`tapedeck openapi infer`): the paths,
/// with segments that hold identifiers folded into templates (`/pets/1` and `/pets/2` give
/// `/pets/{petId}`); query parameters; request and response bodies' schemas inferred from the
/// JSON seen (``SchemaInference``); statuses and media types; one recorded example per answer.
/// The cassettes it came from validate against it.
package struct APIDocumentInference {
    private struct Operation {
        var requests = 0
        var pathParameters: [String: [String]] = [:]
        var queryValues: [String: [String]] = [:]
        var queryCounts: [String: Int] = [:]
        var bodies = 0
        var requestBodies: [String: SchemaInference] = [:]
        var responses: [Int: [String: Answer]] = [:]
        var emptyAnswers: Set<Int> = []
    }

    private struct Answer {
        var schema = SchemaInference()
        var isJSON = false
        var example: JSONValue?
    }

    private var operations: [String: [String: Operation]] = [:]
    private var origins: Set<String> = []

    package init() {}

    /// Takes the interactions of one cassette.
    package mutating func add(_ interactions: some Sequence<Interaction>) {
        for interaction in interactions { add(interaction) }
    }

    private mutating func add(_ interaction: Interaction) {
        let request = interaction.request
        let target = request.target
        if let origin = Self.origin(of: request.url) { origins.insert(origin) }
        let (template, values) = Self.template(of: target.path)
        let method = request.method.lowercased()
        var operation = operations[template]?[method] ?? Operation()
        operation.requests += 1
        for (name, value) in values { operation.pathParameters[name, default: []].append(value) }
        var seen: Set<String> = []
        for pair in target.query.map({ FormURLEncoding.pairs(Substring($0)) }) ?? [] {
            operation.queryValues[pair.name, default: []].append(pair.value)
            if seen.insert(pair.name).inserted { operation.queryCounts[pair.name, default: 0] += 1 }
        }
        if !request.body.isEmpty {
            operation.bodies += 1
            let type = Self.mediaType(request.headers["Content-Type"])
            var schema = operation.requestBodies[type] ?? SchemaInference()
            if let value = Self.json(request.body, type: type) { schema.add(value) }
            operation.requestBodies[type] = schema
        }
        let status = interaction.response.status
        let body = interaction.chunks == nil ? interaction.response.body : Body(interaction.responseBodyData)
        if body.isEmpty {
            operation.emptyAnswers.insert(status)
        } else {
            let type = Self.mediaType(interaction.response.headers["Content-Type"])
            var answer = operation.responses[status]?[type] ?? Answer()
            if let value = Self.json(body, type: type) {
                answer.isJSON = true
                answer.schema.add(value)
                if answer.example == nil { answer.example = value }
            }
            operation.responses[status, default: [:]][type] = answer
        }
        operations[template, default: [:]][method] = operation
    }

    /// The document.
    package var document: JSONValue {
        var paths: [String: JSONValue] = [:]
        for (template, methods) in operations {
            var item: [String: JSONValue] = [:]
            for (method, operation) in methods { item[method] = Self.operation(operation) }
            paths[template] = .object(item)
        }
        var root: [String: JSONValue] = [
            "openapi": .string("3.1.0"),
            "info": .object(["title": .string("Inferred from recorded traffic"), "version": .string("1.0.0")]),
            "paths": .object(paths),
        ]
        if origins.count == 1, let origin = origins.first { root["servers"] = .array([.object(["url": .string(origin)])]) }
        return .object(root)
    }

    private static func operation(_ operation: Operation) -> JSONValue {
        var parameters: [JSONValue] = []
        for (name, values) in operation.pathParameters.sorted(by: { $0.key < $1.key }) {
            parameters.append(.object(["name": .string(name), "in": .string("path"), "required": .bool(true), "schema": textSchema(values)]))
        }
        for (name, values) in operation.queryValues.sorted(by: { $0.key < $1.key }) {
            parameters.append(.object(["name": .string(name), "in": .string("query"), "required": .bool(operation.queryCounts[name] == operation.requests),
                                       "schema": textSchema(values)]))
        }
        var fields: [String: JSONValue] = [:]
        if !parameters.isEmpty { fields["parameters"] = .array(parameters) }
        if !operation.requestBodies.isEmpty {
            fields["requestBody"] = .object([
                "required": .bool(operation.bodies == operation.requests),
                "content": .object(operation.requestBodies.mapValues { schema in .object(["schema": schema.schema]) }),
            ])
        }
        var responses: [String: JSONValue] = [:]
        for status in Set(operation.responses.keys).union(operation.emptyAnswers) {
            var response: [String: JSONValue] = ["description": .string("Recorded \(status) answer")]
            if let media = operation.responses[status] {
                response["content"] = .object(media.mapValues { answer in
                    guard answer.isJSON else { return .object([:]) }
                    var content: [String: JSONValue] = ["schema": answer.schema.schema]
                    if let example = answer.example { content["example"] = example }
                    return .object(content)
                })
            }
            responses[String(status)] = .object(response)
        }
        fields["responses"] = .object(responses)
        return .object(fields)
    }

    /// A path with its identifier segments folded into named parameters, and their values.
    static func template(of path: String) -> (String, [(String, String)]) {
        var segments: [String] = []
        var values: [(String, String)] = []
        var previous = ""
        for segment in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init) {
            guard isIdentifier(segment) else {
                segments.append(segment)
                previous = segment
                continue
            }
            var name = (previous.hasSuffix("s") ? String(previous.dropLast()) : previous) + "Id"
            if name == "Id" { name = "id" }
            while values.contains(where: { $0.0 == name }) { name += "2" }
            segments.append("{\(name)}")
            values.append((name, FormURLEncoding.decode(Substring(segment))))
        }
        return ("/" + segments.joined(separator: "/"), values)
    }

    /// `http://api.example.test` of an absolute URL, as written; nil for a path.
    private static func origin(of url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let path = url[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? url.endIndex
        return String(url[..<path])
    }

    /// Whether a path segment holds an identifier: a number, a UUID, or a token of at least 8
    /// letters and digits with a digit in it.
    private static func isIdentifier(_ segment: String) -> Bool {
        if !segment.isEmpty, segment.allSatisfy(\.isNumber) { return true }
        if UUID(uuidString: segment) != nil { return true }
        return segment.count >= 8 && segment.contains(where: \.isNumber) && segment.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    }

    /// The schema of a parameter's texts: integer, number or boolean when every one reads so, else string.
    private static func textSchema(_ values: [String]) -> JSONValue {
        if values.allSatisfy({ Int64($0) != nil }) { return .object(["type": .string("integer")]) }
        if values.allSatisfy({ Double($0)?.isFinite == true }) { return .object(["type": .string("number")]) }
        if values.allSatisfy({ $0 == "true" || $0 == "false" }) { return .object(["type": .string("boolean")]) }
        return .object(["type": .string("string")])
    }

    /// `application/json; charset=utf-8` gives `application/json`; none gives `*/*`.
    private static func mediaType(_ header: String?) -> String {
        let type = header.map { String($0.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type.isEmpty ? "*/*" : type
    }

    private static func json(_ body: Body, type: String) -> JSONValue? {
        guard APIContract.isJSON(type), body.isReadableWhole else { return nil }
        return JSONValue(parsing: body.data)
    }
}
