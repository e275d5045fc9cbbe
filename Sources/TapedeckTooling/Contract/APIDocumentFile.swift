import Foundation
import OpenAPIKit
import OpenAPIKit30
import TapedeckCore
import Yams

/// An OpenAPI document file, YAML or JSON, read as a contract: parsed (a syntax error named with
/// its line), checked by OpenAPIKit to be an OpenAPI 3.0 or 3.1 document (the first place that is
/// not, named by its path in the document), then read by the core (``APIContract``), which
/// compiles its schemas and follows its `$ref`s.
package enum APIDocumentFile {
    /// Reads the document at `url`; a file that cannot be read or is not a document throws, as bad input.
    package static func contract(at url: URL) throws(ToolingError) -> APIContract {
        let name = url.relativePath
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ToolingError(file: name, kind: .badInput(path: "", message: "cannot read the file: \(error.localizedDescription)"))
        }
        let document = try parse(data, file: name)
        try checkStructure(data, of: document, file: name)
        do {
            return try APIContract(document: document)
        } catch {
            throw ToolingError(file: name, kind: .badInput(path: error.location, message: error.reason))
        }
    }

    /// The document as JSON: JSON when it starts with `{`, YAML otherwise (YAML's JSON subset included).
    private static func parse(_ data: Data, file: String) throws(ToolingError) -> JSONValue {
        if data.first(where: { !Set(" \t\r\n".utf8).contains($0) }) == UInt8(ascii: "{") {
            do {
                return try JSONDecoder().decode(JSONValue.self, from: data)
            } catch {
                // Foundation's message says where: "Unexpected character ... around line 3, column 5."
                let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
                throw ToolingError(file: file, kind: .badInput(path: "", message: "not valid JSON: \(reason)"))
            }
        }
        do {
            return try YAMLDecoder().decode(JSONValue.self, from: data)
        } catch let error as YamlError {
            throw ToolingError(file: file, kind: .badInput(path: "", message: "not valid YAML: \(error)"))
        } catch {
            throw ToolingError(file: file, kind: .badInput(path: "", message: "not an OpenAPI document: \(Self.describe(error))"))
        }
    }

    /// Decodes the document with OpenAPIKit in its version's model: a document that does not
    /// follow the specification's structure is refused with the place and what is wrong.
    private static func checkStructure(_ data: Data, of document: JSONValue, file: String) throws(ToolingError) {
        guard case .object(let root) = document, case .string(let version)? = root["openapi"] else {
            throw ToolingError(file: file, kind: .badInput(path: "openapi", message: "not an OpenAPI document: no \"openapi\" version"))
        }
        let json = document.compactData
        do {
            if version.hasPrefix("3.0") {
                _ = try JSONDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: json)
            } else {
                _ = try JSONDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: json)
            }
        } catch {
            throw ToolingError(file: file, kind: .badInput(path: "", message: "not an OpenAPI \(version) document: \(describe(error))"))
        }
    }

    /// OpenAPIKit's decoding errors say what and where (`Expected ... in .paths['/pets'].get`).
    private static func describe(_ error: any Error) -> String {
        OpenAPIKit.OpenAPI.Error(from: error).localizedDescription
    }
}
