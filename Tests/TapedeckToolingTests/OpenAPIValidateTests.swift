import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing

/// `tapedeck openapi validate` on the real binary: a Petstore document written for the tests, in
/// OpenAPI 3.0 (YAML) and 3.1 (JSON), both checked by Python's `openapi-spec-validator`, against a
/// cassette whose interactions each conform or break the document in one way.
@Suite("tapedeck openapi validate", .serialized)
struct OpenAPIValidateTests {
    static let documents = ["petstore-3.0.yaml", "petstore-3.1.json"]

    static func document(_ name: String) -> URL { ToolingTestSupport.fixture("openapi/\(name)") }

    static let uuid = "0b8f6a4e-5c1d-4e2f-9a3b-7c6d5e4f3a2b"
    static let json: HeaderList = ["Content-Type": "application/json"]

    static func request(_ method: String, _ path: String, headers: HeaderList = ["X-Request-Id": uuid], body: String = "") -> CassetteRequest {
        CassetteRequest(method: method, url: "http://api.example.test/v1\(path)", headers: headers, body: Body(text: body))
    }

    static func answer(_ status: Int, _ body: String = "", headers: HeaderList = json) -> CassetteResponse {
        CassetteResponse(status: status, headers: body.isEmpty ? [:] : headers, body: Body(text: body))
    }

    /// Each interaction and the line it must give (nil: it conforms).
    static let cases: [(Interaction, String?)] = [
        (Interaction(request: request("GET", "/pets?limit=10"),
                     response: answer(200, #"[{"id": 1, "name": "Rex", "tag": null, "owner": {"pets": [{"id": 2, "name": "Tom"}]}}]"#)), nil),
        (Interaction(request: request("GET", "/pets?limit=0"), response: answer(200, "[]")),
         "request.query limit: 0 is less than the minimum 1"),
        (Interaction(request: request("GET", "/pets", headers: [:]), response: answer(200, "[]")),
         "request.header X-Request-Id: required, missing"),
        (Interaction(request: request("POST", "/pets", headers: json, body: #"{"name": ""}"#), response: answer(201, #"{"id": 3, "name": "x"}"#)),
         "request.body $.name: "),
        (Interaction(request: request("POST", "/pets", headers: ["Content-Type": "text/plain"], body: "Rex"), response: answer(201, #"{"id": 3, "name": "Rex"}"#)),
         "request.header Content-Type: text/plain is not documented (documented: application/json)"),
        (Interaction(request: request("POST", "/pets", headers: json), response: answer(201, #"{"id": 3, "name": "Rex"}"#)),
         "request.body: required, missing"),
        (Interaction(request: request("GET", "/pets/abc"), response: answer(200, #"{"id": 1, "name": "Rex"}"#)),
         "request.path petId: expected integer, got string"),
        (Interaction(request: request("GET", "/pets/1"), response: answer(200, #"{"id": "1", "name": "Rex"}"#)),
         "response.body $.id: expected integer, got string"),
        (Interaction(request: request("GET", "/pets/1"), response: answer(500, #"{"message": "down"}"#)),
         "response.status: 500 is not documented for GET /pets/{petId} (documented: 200, 404)"),
        (Interaction(request: request("GET", "/owners"), response: answer(200, "[]")),
         "request.path: /v1/owners is not in the document"),
        (Interaction(request: request("PUT", "/pets/1"), response: answer(200, "{}")),
         "request.method: PUT is not documented for /v1/pets/1"),
        (Interaction(request: request("GET", "/pets"), response: answer(400, #"{"message": "bad"}"#)), nil),
        (Interaction(request: request("DELETE", "/pets/1"), response: answer(204)), nil),
        (Interaction(request: request("GET", "/pets/9"), response: answer(404, "gone", headers: ["Content-Type": "text/plain"])),
         "response.body: the document gives a 404 answer no body"),
        (Interaction(request: request("GET", "/pets/1"), response: answer(200, #"{"id": 1}"#)),
         #"response.body $: required property "name" missing"#),
    ]

    func cassette() throws -> URL {
        let file = try ToolingTestSupport.temporaryFolder().appendingPathComponent("pets.json")
        try CassetteCodec().save(Cassette(interactions: Self.cases.map(\.0)), to: file)
        return file
    }

    @Test("the test documents are valid OpenAPI by openapi-spec-validator", .requires(.openAPISpecValidator))
    func documentsAreValid() throws {
        for name in Self.documents {
            let check = try ToolingTestSupport.run(URL(filePath: "/usr/bin/env"), ["python3", "-c", """
                import json, sys, yaml
                from openapi_spec_validator import validate
                path = sys.argv[1]
                validate(yaml.safe_load(open(path)) if path.endswith(".yaml") else json.load(open(path)))
                """, Self.document(name).path])
            #expect(check.status == 0, "\(name): \(check.stderr)")
        }
    }

    @Test("each violation is one line naming the interaction, the side and the place; exit 1", arguments: documents)
    func violationsAreReported(document: String) throws {
        let outcome = try ToolingTestSupport.tapedeck("openapi", "validate", Self.document(document).path, try cassette().path)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        for (index, (_, expected)) in Self.cases.enumerated() {
            let mine = lines.filter { $0.hasPrefix("interactions[\(index)] ") }
            if let expected {
                #expect(mine.count == 1 && mine[0].hasPrefix("interactions[\(index)] \(expected)"), "\(document) [\(index)]: \(mine)")
            } else {
                #expect(mine.isEmpty, "\(document) [\(index)] conforms: \(mine)")
            }
        }
        let violations = Self.cases.filter { $0.1 != nil }.count
        #expect(lines.last == "\(Self.cases.count) interactions checked: \(violations) violations", "\(outcome.stdout)")
    }

    @Test("--json lists one object per violation with the interaction's index")
    func jsonOutput() throws {
        let outcome = try ToolingTestSupport.tapedeck("openapi", "validate", "--json", Self.document("petstore-3.0.yaml").path, try cassette().path)
        #expect(outcome.status == 1)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
        #expect(list.count == Self.cases.filter { $0.1 != nil }.count)
        let body = try #require(list.first { $0["interaction"] as? Int == 7 })
        #expect(body["side"] as? String == "response" && body["place"] as? String == "body" && body["path"] as? String == "$.id")
        #expect(body["message"] as? String == "expected integer, got string")
    }

    @Test("a conforming cassette exits 0")
    func cleanExitsZero() throws {
        let file = try ToolingTestSupport.temporaryFolder().appendingPathComponent("clean.json")
        try CassetteCodec().save(Cassette(interactions: Self.cases.filter { $0.1 == nil }.map(\.0)), to: file)
        let outcome = try ToolingTestSupport.tapedeck("openapi", "validate", Self.document("petstore-3.1.json").path, file.path)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.hasSuffix("3 interactions checked: clean\n") || outcome.stdout.hasSuffix("3 interactions checked: clean"), "\(outcome.stdout)")
    }

    @Test("a document that cannot be read exits 2 naming the file and the place",
          arguments: [
            ("openapi: 3.0.3\npaths: [unclosed\n", "not valid YAML"),
            (##"{"openapi": "3.0.3", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"get": {"responses": {"200": {"description": "x", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nope"}}}}}}}}}"##,
             "#/components/schemas/Nope"),
            (#"{"swagger": "2.0"}"#, "not an OpenAPI document"),
            (#"{"openapi": "3.1.0", "info": {"title": "x"}, "paths": {}}"#, "not an OpenAPI 3.1.0 document"),
          ])
    func unreadableDocument(text: String, expected: String) throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let spec = folder.appendingPathComponent(text.hasPrefix("{") ? "bad.json" : "bad.yaml")
        try Data(text.utf8).write(to: spec)
        let outcome = try ToolingTestSupport.tapedeck("openapi", "validate", spec.path, try cassette().path)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("tapedeck openapi validate: error: ") || outcome.stderr.contains("error:"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains(spec.lastPathComponent) && outcome.stderr.contains(expected), "\(outcome.stderr)")
    }
}
