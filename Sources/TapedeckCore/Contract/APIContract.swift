import Foundation

/// What an OpenAPI 3.0 or 3.1 document promises, read from the document as JSON: its operations,
/// each with its parameters, request body and answers, and their schemas compiled once
/// (``JSONSchema``, in the document's dialect, so a `$ref` reaches anything in the document and a
/// recursive schema works). Recorded exchanges are checked against it with
/// ``violations(of:at:)``.
///
/// Only `#/...` references inside the document are followed; a reference to another file is an
/// error. Cookie parameters are read but not checked.
public struct APIContract: Sendable {
    /// The schemas' dialect: OpenAPI 3.0's Schema Object, or JSON Schema 2020-12 for 3.1.
    public let dialect: JSONSchema.Dialect
    /// The path prefixes of the document's servers (`/v1`), longest first, `""` among them.
    let basePaths: [String]
    let operations: [APIOperation]
    /// What the document's schemas hold that is not checked, each once.
    public let warnings: [SchemaWarning]
    /// The seed of the bodies generated from schemas (``answer(for:unless:)``): the same seed gives the same bytes.
    public var seed: UInt64 = 0
    /// Whether a server refuses a request that breaks the document, instead of serving it (`--openapi-strict`).
    public var refusesViolations = false

    private static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Reads the document; throws naming the place that cannot be read.
    public init(document: JSONValue) throws(APIContractError) {
        guard case .object(let root) = document else {
            throw APIContractError(location: "#", reason: "an OpenAPI document is a JSON or YAML object")
        }
        guard case .string(let version)? = root["openapi"], version.hasPrefix("3.") else {
            throw APIContractError(location: "#/openapi", reason: "only OpenAPI 3.0 and 3.1 documents are read (\"openapi\": \"3.0.3\" or \"3.1.0\")")
        }
        let dialect: JSONSchema.Dialect = version.hasPrefix("3.0") ? .openAPI30 : .draft2020_12
        var reader = Reader(document: document, dialect: dialect)
        var operations: [APIOperation] = []
        if case .object(let paths)? = root["paths"] {
            for template in paths.keys.sorted() {
                operations += try reader.operations(at: JSONPointer.root.appending("paths").appending(template), template: template)
            }
        }
        self.dialect = dialect
        self.operations = operations
        basePaths = Self.basePaths(root["servers"])
        warnings = reader.warnings
    }

    /// The paths of the servers' URLs (`https://api.example.com/v1` gives `/v1`), longest first; a
    /// server URL with variables (`{version}`) counts with its default.
    private static func basePaths(_ servers: JSONValue?) -> [String] {
        var paths: Set<String> = [""]
        if case .array(let list)? = servers {
            for case .object(let server) in list {
                guard case .string(var url)? = server["url"] else { continue }
                if case .object(let variables)? = server["variables"] {
                    for (name, variable) in variables {
                        if case .object(let fields) = variable, case .string(let value)? = fields["default"] {
                            url = url.replacingOccurrences(of: "{\(name)}", with: value)
                        }
                    }
                }
                let path = url.contains("://") ? RequestTarget(url).path : url
                let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
                if trimmed.hasPrefix("/") { paths.insert(trimmed) }
            }
        }
        return paths.sorted { $0.count > $1.count }
    }

    /// Which operation a request fits.
    enum Fit {
        /// This one, with the values of its path's parameters.
        case operation(APIOperation, pathValues: [String: String])
        /// None: why, as the violation to report.
        case none(ContractViolation)
    }

    /// The operation a request's method and path fit, or why none does.
    func fit(method: String, path: String) -> Fit {
        var pathOnly = Substring(path)
        if let query = pathOnly.firstIndex(of: "?") { pathOnly = pathOnly[..<query] }
        var fits: [(APIOperation, [String: String])] = []
        var documentedPath = false
        for base in basePaths where base.isEmpty || pathOnly == base || pathOnly.hasPrefix(base + "/") {
            let rest = pathOnly.dropFirst(base.count)
            let segments = rest.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
                .map { FormURLEncoding.decode(Substring($0.replacingOccurrences(of: "+", with: "%2B"))) }
            for operation in operations {
                guard let values = operation.parameterValues(of: Array(segments)) else { continue }
                documentedPath = true
                if operation.method == method { fits.append((operation, values)) }
            }
            if !fits.isEmpty { break }
        }
        if let best = fits.max(by: { $0.0.literalCount < $1.0.literalCount }) { return .operation(best.0, pathValues: best.1) }
        let place = documentedPath ? "method" : "path"
        let message = documentedPath ? "\(method) is not documented for \(pathOnly)" : "\(pathOnly) is not in the document"
        return .none(ContractViolation(interaction: 0, side: .request, place: place, message: message))
    }
}

extension APIContract {
    /// Reads operations out of the document, following its `$ref`s.
    struct Reader {
        let document: JSONValue
        let dialect: JSONSchema.Dialect
        private(set) var warnings: [SchemaWarning] = []

        init(document: JSONValue, dialect: JSONSchema.Dialect) {
            self.document = document
            self.dialect = dialect
        }

        /// The operations of one path item.
        mutating func operations(at pointer: JSONPointer, template: String) throws(APIContractError) -> [APIOperation] {
            let (item, itemPointer) = try resolve(pointer)
            guard case .object(let fields) = item else { throw APIContractError(location: "\(pointer)", reason: "a path item is an object") }
            let segments = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { segment in
                segment.hasPrefix("{") && segment.hasSuffix("}")
                    ? APIOperation.Segment.parameter(String(segment.dropFirst().dropLast())) : .literal(String(segment))
            }
            let shared = try parameters(at: itemPointer.appending("parameters"))
            var operations: [APIOperation] = []
            for method in APIContract.methods {
                guard fields[method] != nil else { continue }
                let at = itemPointer.appending(method)
                var own = try parameters(at: at.appending("parameters"))
                for parameter in shared where !own.contains(where: { $0.name == parameter.name && $0.location == parameter.location }) {
                    own.append(parameter)
                }
                operations.append(APIOperation(method: method.uppercased(), template: template, segments: segments, parameters: own,
                                               requestBody: try requestBody(at: at.appending("requestBody")),
                                               responses: try responses(at: at.appending("responses"))))
            }
            return operations
        }

        private mutating func parameters(at pointer: JSONPointer) throws(APIContractError) -> [APIOperation.Parameter] {
            guard case .array(let list)? = pointer.resolve(in: document) else { return [] }
            var parameters: [APIOperation.Parameter] = []
            for index in list.indices {
                let (value, at) = try resolve(pointer.appending(index))
                guard case .object(let fields) = value, case .string(let name)? = fields["name"], case .string(let location)? = fields["in"] else {
                    throw APIContractError(location: "\(pointer.appending(index))", reason: "a parameter needs \"name\" and \"in\"")
                }
                let schema = fields["schema"] == nil ? nil : try compile(at.appending("schema"))
                let required = fields["required"] == .bool(true) || location == "path"
                parameters.append(APIOperation.Parameter(name: name, location: location, isRequired: required, schema: schema,
                                                         types: topTypes(at.appending("schema"))))
            }
            return parameters
        }

        private mutating func requestBody(at pointer: JSONPointer) throws(APIContractError) -> (isRequired: Bool, content: APIOperation.Content)? {
            guard pointer.resolve(in: document) != nil else { return nil }
            let (value, at) = try resolve(pointer)
            guard case .object(let fields) = value else { return nil }
            return (fields["required"] == .bool(true), try content(at: at.appending("content")) ?? APIOperation.Content(mediaTypes: [:]))
        }

        private mutating func responses(at pointer: JSONPointer) throws(APIContractError) -> [String: APIOperation.Content?] {
            guard case .object(let list)? = pointer.resolve(in: document) else { return [:] }
            var responses: [String: APIOperation.Content?] = [:]
            for key in list.keys {
                let (_, at) = try resolve(pointer.appending(key))
                responses[key.uppercased()] = .some(try content(at: at.appending("content")))
            }
            return responses
        }

        /// A `content` map, or nil when there is none (an answer without body).
        private mutating func content(at pointer: JSONPointer) throws(APIContractError) -> APIOperation.Content? {
            guard case .object(let types)? = pointer.resolve(in: document) else { return nil }
            var content = APIOperation.Content(mediaTypes: [:])
            for type in types.keys {
                let at = pointer.appending(type)
                let hasSchema = at.appending("schema").resolve(in: document) != nil
                content.mediaTypes[type.lowercased()] = hasSchema ? .some(try compile(at.appending("schema"))) : .some(nil)
                content.examples[type.lowercased()] = try examples(at: at)
            }
            return content
        }

        /// A media type's `examples` by name (each an Example Object's `value`), and its `example` as `example`.
        private func examples(at pointer: JSONPointer) throws(APIContractError) -> [String: JSONValue] {
            var examples: [String: JSONValue] = [:]
            if let example = pointer.appending("example").resolve(in: document) { examples["example"] = example }
            if case .object(let named)? = pointer.appending("examples").resolve(in: document) {
                for name in named.keys {
                    let (value, _) = try resolve(pointer.appending("examples").appending(name))
                    if case .object(let fields) = value, let example = fields["value"] { examples[name] = example }
                }
            }
            return examples
        }

        private mutating func compile(_ pointer: JSONPointer) throws(APIContractError) -> JSONSchema {
            do {
                let schema = try JSONSchema(document: document, pointer: "\(pointer)", dialect: dialect)
                for warning in schema.warnings where !warnings.contains(warning) { warnings.append(warning) }
                return schema
            } catch {
                throw APIContractError(location: error.location, reason: "\(error)")
            }
        }

        /// The `type`s a schema names at its top, after its `$ref`s.
        private func topTypes(_ pointer: JSONPointer) -> Set<String> {
            guard let (value, _) = try? resolve(pointer), case .object(let fields) = value else { return [] }
            switch fields["type"] {
            case .string(let type)?: return [type]
            case .array(let types)?: return Set(types.compactMap { if case .string(let type) = $0 { type } else { nil } })
            default: return []
            }
        }

        /// The value at `pointer`, after the `$ref`s it holds (local ones only), with where it is.
        func resolve(_ pointer: JSONPointer) throws(APIContractError) -> (JSONValue, JSONPointer) {
            var at = pointer
            for _ in 0..<32 {
                guard let value = at.resolve(in: document) else {
                    throw APIContractError(location: "\(pointer)", reason: "nothing at \"\(at)\"")
                }
                guard case .object(let fields) = value, case .string(let reference)? = fields["$ref"] else { return (value, at) }
                guard reference.hasPrefix("#"), let next = JSONPointer(reference), next.resolve(in: document) != nil else {
                    throw APIContractError(location: "\(at)", reason: "$ref \"\(reference)\" points to nothing in the document")
                }
                at = next
            }
            throw APIContractError(location: "\(pointer)", reason: "$ref chain is circular")
        }
    }
}
