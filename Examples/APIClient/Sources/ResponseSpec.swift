import Foundation
import HTTPTypes

/// How a response becomes a model: which statuses are acceptable and how the body is parsed.
public struct ResponseSpec<Model: Sendable>: Sendable {
    /// Validates the status and parses the body; throws ``APIError`` otherwise.
    public let parse: @Sendable (HTTPResponse, Data) throws -> Model

    /// Creates a response spec from a parser.
    public init(parse: @escaping @Sendable (HTTPResponse, Data) throws -> Model) {
        self.parse = parse
    }
}

extension ResponseSpec where Model: Decodable {
    /// A JSON model, from one of the accepted statuses (2xx by default).
    public static func json(_ type: Model.Type = Model.self, accepting statuses: Set<Int>? = nil) -> ResponseSpec {
        ResponseSpec { response, data in
            try validate(response, data, accepting: statuses)
            do {
                return try JSONDecoder().decode(Model.self, from: data)
            } catch {
                throw APIError.undecodable(type: "\(Model.self)", reason: "\(error)")
            }
        }
    }
}

extension ResponseSpec {
    /// A JSON list where 404 means "nothing there" and so an empty list.
    public static func list<Element: Decodable & Sendable>(of type: Element.Type) -> ResponseSpec<[Element]> where Model == [Element] {
        ResponseSpec { response, data in
            if response.status.code == 404 { return [] }
            return try ResponseSpec<[Element]>.json().parse(response, data)
        }
    }

    /// The body written to a file; the file's URL is the model.
    public static func file(to destination: URL) -> ResponseSpec<URL> where Model == URL {
        ResponseSpec<URL> { response, data in
            try validate(response, data, accepting: nil)
            do {
                try data.write(to: destination, options: .atomic)
            } catch {
                throw APIError.notWritten(file: destination.path, reason: "\(error)")
            }
            return destination
        }
    }
}

/// Throws ``APIError/unexpectedStatus(_:body:)`` unless the status is accepted.
func validate(_ response: HTTPResponse, _ data: Data, accepting statuses: Set<Int>?) throws {
    let code = response.status.code
    let accepted = statuses.map { $0.contains(code) } ?? (200..<300).contains(code)
    guard accepted else { throw APIError.unexpectedStatus(code, body: String(decoding: data.prefix(200), as: UTF8.self)) }
}
