/// One operation of an API document (`GET /pets/{petId}`): what a request to it may carry and
/// what it may be answered, each schema compiled once.
struct APIOperation: Sendable {
    /// One step of the path template.
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// A parameter of the path, the query or the headers.
    struct Parameter: Sendable {
        var name: String
        /// `path`, `query`, `header` or `cookie`.
        var location: String
        var isRequired: Bool
        var schema: JSONSchema?
        /// The JSON types the schema names at its top (`integer`, `array`...), to read the text as.
        var types: Set<String>
    }

    /// A body as the document describes it: by media type, each with its schema if any.
    struct Content: Sendable {
        var mediaTypes: [String: JSONSchema?]
        /// Each media type's examples by name (`example` alone is named `example`).
        var examples: [String: [String: JSONValue]] = [:]
    }

    /// The method, upper case.
    var method: String
    /// The template as the document writes it.
    var template: String
    var segments: [Segment]
    var parameters: [Parameter]
    /// The request body, with whether it is required.
    var requestBody: (isRequired: Bool, content: Content)?
    /// The documented answers by status key (`200`, `4XX`, `default`); nil content is an answer without body.
    var responses: [String: Content?]

    /// `GET /pets/{petId}`.
    var name: String { "\(method) \(template)" }

    /// The values of the template's parameters when `segments` (decoded) fit it, else nil.
    func parameterValues(of path: [String]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (segment, given) in zip(segments, path) {
            switch segment {
            case .literal(let literal): guard literal == given else { return nil }
            case .parameter(let name): values[name] = given
            }
        }
        return values
    }

    /// How many literal segments: a template with more of them is the closer fit (OpenAPI's rule).
    var literalCount: Int {
        segments.reduce(0) { count, segment in
            if case .literal = segment { count + 1 } else { count }
        }
    }
}
