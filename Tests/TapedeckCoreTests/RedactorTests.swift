import Foundation
import Testing
@_spi(Internals) @testable import TapedeckCore

@Suite("Redaction")
struct RedactorTests {
    let redactor = Redactor()

    @Test("default request headers", arguments: ["Authorization", "proxy-authorization", "Cookie", "X-API-KEY"])
    func defaultRequestHeaders(name: String) {
        let redacted = redactor.redact(interaction(request("GET", "/", headers: [name: "secret", "Accept": "*/*"]))).0
        #expect(redacted.request.headers[name] == "<redacted>")
        #expect(redacted.request.headers["Accept"] == "*/*")
    }

    @Test("Set-Cookie in responses, every value")
    func setCookie() {
        let recorded = interaction(request("GET", "/"), headers: ["Set-Cookie": "a=1", "set-cookie": "b=2", "Content-Type": "text/plain"])
        let (redacted, changes) = redactor.redact(recorded)
        #expect(redacted.response.headers.values(for: "Set-Cookie") == ["<redacted>", "<redacted>"])
        #expect(changes == ["response header Set-Cookie", "response header set-cookie"])
    }

    @Test("default query parameters", arguments: ["access_token", "api_key", "apikey", "client_secret", "password", "token"])
    func defaultQuery(name: String) {
        let redacted = redactor.redact(interaction(request("GET", "https://a.test/p?keep=1&\(name)=s3cr3t#frag"))).0
        #expect(redacted.request.url == "https://a.test/p?keep=1&\(name)=<redacted>#frag")
    }

    @Test("default JSON fields at any depth, in requests and responses",
          arguments: ["password", "client_secret", "access_token", "refresh_token", "id_token"])
    func defaultJSON(name: String) throws {
        let json: HeaderList = ["Content-Type": "application/json"]
        let recorded = interaction(request("POST", "/token", headers: json, body: #"{"user": {"\#(name)": "s3cr3t"}, "keep": 1}"#),
                                   body: #"{"\#(name)": "abc", "list": [{"\#(name)": "def"}]}"#, headers: json)
        let redacted = redactor.redact(recorded).0
        let requestJSON = try #require(JSONValue(parsing: redacted.request.body.data))
        #expect(requestJSON == JSONValue(parsing: Data(#"{"user": {"\#(name)": "<redacted>"}, "keep": 1}"#.utf8)))
        let responseText = try #require(redacted.response.body.text)
        #expect(!responseText.contains("abc") && !responseText.contains("def"))
    }

    @Test("a key written with JSON escapes is still found and redacted")
    func escapedKey() throws {
        let json: HeaderList = ["Content-Type": "application/json"]
        let recorded = interaction(request("POST", "/login", headers: json, body: #"{"pass\u0077ord": "hunter2", "user": "a"}"#))
        let redacted = redactor.redact(recorded).0
        #expect(JSONValue(parsing: redacted.request.body.data) == JSONValue(parsing: Data(#"{"password": "<redacted>", "user": "a"}"#.utf8)))
    }

    @Test("a JSON body naming no redacted key is left byte for byte")
    func untouchedJSON() {
        let json: HeaderList = ["Content-Type": "application/json"]
        let recorded = interaction(request("POST", "/items", headers: json, body: "{ \"name\" : \"a\",\n  \"passwords_count\": 2 }"))
        #expect(redactor.redact(recorded).0 == recorded)
    }

    @Test("form bodies use the query parameter rules")
    func formBody() {
        let recorded = interaction(request("POST", "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                           body: "user=a&password=hunter2"))
        #expect(redactor.redact(recorded).0.request.body.text == "user=a&password=<redacted>")
    }

    @Test("rules are scoped, never a substring search over the text")
    func scoped() {
        let recorded = interaction(request("POST", "/notes?tokenizer=word", headers: ["X-Token-Info": "visible", "Content-Type": "text/plain"],
                                           body: "my password is hunter2"))
        let (redacted, changes) = redactor.redact(recorded)
        #expect(redacted == recorded)
        #expect(changes.isEmpty)
    }

    @Test("user rules for headers, query parameters and JSON paths")
    func userRules() throws {
        let rules = RedactionRules.defaults.adding(headers: ["X-Session"], queryParameters: ["sig"], jsonPaths: [try JSONPath("$.card.number")])
        let json: HeaderList = ["Content-Type": "application/json", "X-Session": "abc"]
        let recorded = interaction(request("POST", "/pay?sig=xyz", headers: json, body: #"{"card": {"number": "4242", "exp": "12/30"}}"#))
        let redacted = Redactor(rules: rules).redact(recorded).0
        #expect(redacted.request.headers["x-session"] == "<redacted>")
        #expect(redacted.request.url == "/pay?sig=<redacted>")
        #expect(JSONValue(parsing: redacted.request.body.data) == JSONValue(parsing: Data(#"{"card": {"number": "<redacted>", "exp": "12/30"}}"#.utf8)))
    }

    @Test("no rules leave everything as it was")
    func none() {
        let recorded = interaction(request("GET", "/?token=a", headers: ["Authorization": "b"]))
        #expect(Redactor(rules: .none).redact(recorded).0 == recorded)
    }
}

@Suite("JSON paths")
struct JSONPathTests {
    let document = JSONValue(parsing: Data(#"{"a": {"b": [1, {"c": 2}]}, "items": [{"id": 1}, {"id": 2}], "odd key": 3}"#.utf8))!

    @Test("places a path names", arguments: [
        ("$.a.b[1].c", ["$.a.b[1].c"]),
        ("$.items[*].id", ["$.items[0].id", "$.items[1].id"]),
        ("$..id", ["$.items[0].id", "$.items[1].id"]),
        ("$['odd key']", ["$['odd key']"]),
        ("$.missing", []),
    ])
    func places(path: String, expected: [String]) throws {
        #expect(try JSONPath(path).places(in: document).map(\.description) == expected)
    }

    @Test("malformed paths are refused with the reason", arguments: ["a.b", "$.", "$[x]", "$..", "$.a[1"])
    func malformed(path: String) {
        #expect(throws: JSONPathError.self) { try JSONPath(path) }
    }

    @Test("removing a place keeps the rest")
    func removing() throws {
        let removed = try JSONPath("$.items[*].id").rewriting(document) { _ in nil }
        #expect(removed == JSONValue(parsing: Data(#"{"a": {"b": [1, {"c": 2}]}, "items": [{}, {}], "odd key": 3}"#.utf8)))
    }
}

@Suite("Journal")
struct JournalTests {
    @Test("the journal keeps the latest entries and counts the dropped ones")
    func bounded() {
        let journal = Journal(capacity: 3)
        for number in 0..<5 {
            journal.append(JournalEntry(time: "t", method: "GET", url: "/\(number)", session: nil, outcome: .played))
        }
        let document = journal.document()
        #expect(document.entries.map(\.url) == ["/2", "/3", "/4"])
        #expect(document.dropped == 2)
        journal.reset()
        #expect(journal.document() == JournalDocument(entries: [], dropped: 0))
    }

    @Test("a bounded log numbers its entries as they come, and goes on numbering after a reset")
    func numbering() {
        let log = BoundedLog<String>(capacity: 2)
        #expect(log.append("entry") { $0 += " \($1)" } == 1)
        #expect(log.append("entry") { $0 += " \($1)" } == 2)
        #expect(log.append("entry") { $0 += " \($1)" } == 3)
        #expect(log.snapshot().entries == ["entry 2", "entry 3"])
        log.reset()
        #expect(log.append("entry") { $0 += " \($1)" } == 4)
        #expect(log.snapshot().entries == ["entry 4"])
        #expect(log.snapshot().dropped == 0)
    }
}
