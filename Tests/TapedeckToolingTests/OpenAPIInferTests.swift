import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing

/// `tapedeck openapi infer` on the real binary: the document it writes is valid OpenAPI 3.1 by
/// Python's `openapi-spec-validator`, and the cassettes it came from validate against it.
@Suite("tapedeck openapi infer", .serialized)
struct OpenAPIInferTests {
    static let json: HeaderList = ["Content-Type": "application/json"]

    static func exchange(_ method: String, _ path: String, body: String = "", status: Int, answer: String = "",
                         type: String = "application/json") -> Interaction {
        Interaction(request: CassetteRequest(method: method, url: "http://api.example.test\(path)", headers: body.isEmpty ? [:] : json,
                                             body: Body(text: body)),
                    response: CassetteResponse(status: status, headers: answer.isEmpty ? [:] : ["Content-Type": type], body: Body(text: answer)))
    }

    static let interactions = [
        exchange("GET", "/v1/pets?limit=10", status: 200, answer: #"[{"id": 1, "name": "Rex", "tag": null}, {"id": 2, "name": "Tom", "tag": "cat"}]"#),
        exchange("GET", "/v1/pets", status: 200, answer: "[]"),
        exchange("GET", "/v1/pets/1", status: 200, answer: #"{"id": 1, "name": "Rex", "tag": null, "weight": 12.5}"#),
        exchange("GET", "/v1/pets/2", status: 200, answer: #"{"id": 2, "name": "Tom", "weight": 4}"#),
        exchange("POST", "/v1/pets", body: #"{"name": "Kit"}"#, status: 201, answer: #"{"id": 3, "name": "Kit"}"#),
        exchange("DELETE", "/v1/pets/1", status: 204),
        exchange("GET", "/v1/pets/9", status: 404, answer: "gone", type: "text/plain"),
        exchange("GET", "/v1/owners/0b8f6a4e-5c1d-4e2f-9a3b-7c6d5e4f3a2b/pets", status: 200, answer: "[]"),
    ]

    @Test("the inferred document is valid OpenAPI, folds identifiers into templates, and its cassettes validate",
          .requires(.openAPISpecValidator))
    func inferredDocumentValidates() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let cassette = folder.appendingPathComponent("pets.json")
        try CassetteCodec().save(Cassette(interactions: Self.interactions), to: cassette)
        let spec = folder.appendingPathComponent("inferred.json")
        let infer = try ToolingTestSupport.tapedeck("openapi", "infer", cassette.path, "-o", spec.path)
        #expect(infer.status == 0, "\(infer.stderr)")

        let document = try #require(JSONValue(parsing: try Data(contentsOf: spec)))
        guard case .object(let root) = document, case .object(let paths)? = root["paths"] else { Issue.record("no paths"); return }
        #expect(Set(paths.keys) == ["/v1/pets", "/v1/pets/{petId}", "/v1/owners/{ownerId}/pets"], "\(paths.keys.sorted())")
        #expect(root["servers"] == .array([.object(["url": .string("http://api.example.test")])]))
        let pet = try JSONPath("$.paths['/v1/pets/{petId}'].get.responses['200'].content['application/json'].schema").values(in: document).first
        #expect(pet == JSONValue(parsing: Data(#"""
            {"type": "object", "required": ["id", "name", "weight"],
             "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "tag": {"type": "null"}, "weight": {"type": "number"}}}
            """#.utf8)), "\(pet.map { String(decoding: $0.compactData, as: UTF8.self) } ?? "none")")

        let check = try ToolingTestSupport.run(URL(filePath: "/usr/bin/env"), ["python3", "-c",
            "import json, sys\nfrom openapi_spec_validator import validate\nvalidate(json.load(open(sys.argv[1])))", spec.path])
        #expect(check.status == 0, "openapi-spec-validator: \(check.stderr)")
        let validate = try ToolingTestSupport.tapedeck("openapi", "validate", spec.path, cassette.path)
        #expect(validate.status == 0, "\(validate.stdout)")
    }

    @Test("a cassette that cannot be read exits 2")
    func unreadableCassette() throws {
        let outcome = try ToolingTestSupport.tapedeck("openapi", "infer", "/nonexistent/pets.json")
        #expect(outcome.status == 2, "\(outcome.stderr)")
    }
}
