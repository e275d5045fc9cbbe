import Foundation
import Testing
@testable import TapedeckCore

/// The piecewise JSON redaction of bodies too large to parse whole: the same places redacted as
/// the whole-body redaction (``JSONPath/rewriting(_:_:)``), whatever the pieces, every other byte
/// kept, and a clear refusal of what is not JSON.
@Suite("JSON redaction piece by piece")
struct JSONStreamRedactorTests {
    static let documents = [
        #"{"user": {"password": "s3cr3t", "name": "ann"}, "keep": [1, 2.5e-3, true, false, null]}"#,
        #"[{"access_token": {"nested": ["x", {"password": 1}]}, "id": 1}, {"id": 2, "token": "t"}, "password"]"#,
        #"{"pass\u0077ord": "escaped name", "text": "a \"quoted\" } ] , : { [ value \\", "list": [[], {}, [{}]]}"#,
        #"{"items": [{"id": 1, "secret": "a"}, {"id": 2, "secret": "b"}, {"id": 3}], "odd key": {"id": -0.5}}"#,
        #"  {"meta": {"requestId": "r-1", "nonce": 7}, "data": {"nonce": {"deep": [1, {"nonce": null}]}}}  "#,
        #""just a string""#,
        "42",
        #"{"é": "unicode ✓", "refresh_token": "r", "id_token": ["i", "j"], "client_secret": {}}"#,
    ]

    static let pathSets: [[String]] = [
        RedactionRules.defaults.jsonPaths.map(\.description),
        ["$.user.password", "$.items[*].secret", "$.items[1]", "$['odd key'].id"],
        ["$..nonce", "$.meta.requestId", "$[0].id", "$[*].token"],
        ["$.keep[2]", "$.list[*]", "$.text"],
        ["$"],
    ]

    /// The document redacted in pieces of `size` bytes (all at once when nil).
    private func redact(_ text: String, paths: [String], pieceSize size: Int? = nil) throws -> (Data, [String]) {
        var redactor = JSONStreamRedactor(paths: try paths.map { try JSONPath($0) })
        let bytes = Data(text.utf8)
        var output = Data()
        let step = size ?? max(bytes.count, 1)
        for start in stride(from: 0, to: bytes.count, by: step) {
            output.append(try redactor.update(bytes[start..<min(start + step, bytes.count)]))
        }
        output.append(try redactor.finish())
        return (output, redactor.redactedPaths)
    }

    @Test("the same places as the whole-body redaction, for every document and set of paths", arguments: pathSets)
    func samePlacesAsWholeBody(paths: [String]) throws {
        for document in Self.documents {
            var expected = try #require(JSONValue(parsing: Data(document.utf8)), "\(document)")
            for path in paths {
                expected = try JSONPath(path).rewriting(expected) { _ in .string(Redactor.placeholder) }
            }
            let (output, _) = try redact(document, paths: paths)
            #expect(JSONValue(parsing: output) == expected, "\(document) with \(paths): \(String(decoding: output, as: UTF8.self))")
        }
    }

    @Test("whatever the pieces: every split point and single bytes give the same output")
    func piecesDoNotMatter() throws {
        let paths = RedactionRules.defaults.jsonPaths.map(\.description) + ["$.items[*].secret", "$..nonce"]
        for document in Self.documents {
            let (whole, _) = try redact(document, paths: paths)
            for size in [1, 2, 3, 7] {
                #expect(try redact(document, paths: paths, pieceSize: size).0 == whole, "\(document) in pieces of \(size)")
            }
            let bytes = Data(document.utf8)
            for split in 0...bytes.count {
                var redactor = JSONStreamRedactor(paths: try paths.map { try JSONPath($0) })
                var output = try redactor.update(bytes[..<split])
                output.append(try redactor.update(bytes[split...]))
                output.append(try redactor.finish())
                #expect(output == whole, "\(document) split at \(split)")
            }
        }
    }

    @Test("every byte outside a redacted value passes as it came: spacing, order, escapes")
    func otherBytesUnchanged() throws {
        let document = "{ \"b\" :[1,2 ],\n  \"password\" : { \"x\": [\"}\"] },\"a\":\"\\u00e9\" , \"password\":\"again\" }"
        let (output, redacted) = try redact(document, paths: ["$..password"])
        #expect(String(decoding: output, as: UTF8.self)
            == "{ \"b\" :[1,2 ],\n  \"password\" : \"<redacted>\",\"a\":\"\\u00e9\" , \"password\":\"<redacted>\" }")
        #expect(redacted == ["$..password"])
    }

    @Test("a document with nothing to redact is copied byte for byte, and no path is reported")
    func nothingToRedact() throws {
        let document = #"{"name": "ann", "list": [1, {"id": "x"}]}"#
        let (output, redacted) = try redact(document, paths: RedactionRules.defaults.jsonPaths.map(\.description))
        #expect(output == Data(document.utf8))
        #expect(redacted.isEmpty)
    }

    @Test("what is not JSON is refused with the offset and the reason",
          arguments: [
              (#"{"a": 1"#, "the document ends early"),
              (#"{"a" 1}"#, "expected :"),
              (#"{"a": 1]"#, "expected , or }"),
              (#"[1, 2}"#, "expected , or ]"),
              (#"{"a": tru}"#, "not true, false or null"),
              (#"{"a": nulls}"#, "not true, false or null"),
              (#"{"a": 12x}"#, "not a number"),
              (#"{a: 1}"#, "expected a member name"),
              (#"{"a": }"#, "expected a value"),
              (#"{"a": 1} {"#, "more after the document"),
              (#"{"a": "open"#, "the document ends early"),
              ("", "the document ends early"),
              (String(repeating: "[", count: JSONStreamRedactor.deepest + 1), "nested more than 10000 deep"),
          ])
    func notJSON(document: String, reason: String) {
        do {
            _ = try redact(document, paths: ["$..password"])
            Issue.record("\(document) was taken for JSON")
        } catch let error as JSONStreamRedactor.NotJSON {
            #expect(error.reason == reason, "\(document): \(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a large document keeps its memory: only the open containers are held")
    func largeDocument() throws {
        // 2 MiB of members in pieces of 64 KiB, a secret at each end.
        let member = #"{"id": 12345, "text": "lorem ipsum dolor sit amet, \"quoted\" [and] {braced}"},"#
        var text = #"{"access_token": "first-secret", "items": ["#
        text += String(repeating: member, count: (2 << 20) / member.utf8.count)
        text += #"{}], "password": "last-secret"}"#
        let (output, redacted) = try redact(text, paths: RedactionRules.defaults.jsonPaths.map(\.description), pieceSize: 64 << 10)
        let redactedText = String(decoding: output, as: UTF8.self)
        #expect(!redactedText.contains("first-secret") && !redactedText.contains("last-secret"))
        #expect(output.count == text.utf8.count - "first-secret".count - "last-secret".count + 2 * "<redacted>".count)
        #expect(Set(redacted) == ["$..access_token", "$..password"])
    }
}
