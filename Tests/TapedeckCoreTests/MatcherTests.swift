import Foundation
import Testing
@testable import TapedeckCore

@Suite("Matching rules")
struct MatcherTests {
    /// Whether `incoming` matches a cassette holding only `recorded`.
    func matches(_ recorded: CassetteRequest, _ incoming: CassetteRequest, options: MatchOptions = .default) -> Bool {
        !Matcher(interactions: [interaction(recorded)], options: options).matches(incoming).isEmpty
    }

    let json: HeaderList = ["Content-Type": "application/json"]
    let form: HeaderList = ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"]

    @Test("method compares exactly")
    func method() {
        #expect(matches(request("GET", "/a"), request("GET", "/a")))
        #expect(!matches(request("GET", "/a"), request("POST", "/a")))
    }

    @Test("host counts only when the incoming request names one")
    func host() {
        let recorded = request("GET", "https://api.example.test/users")
        #expect(matches(recorded, request("GET", "/users")))
        #expect(matches(recorded, request("GET", "https://API.example.test:443/users")))
        #expect(!matches(recorded, request("GET", "https://other.example.test/users")))
        #expect(!matches(recorded, request("GET", "http://api.example.test/users")))
        #expect(!matches(recorded, request("GET", "https://api.example.test:8443/users")))
    }

    @Test("path compares after decoding unreserved percent escapes only")
    func path() {
        #expect(matches(request("GET", "/users/~me"), request("GET", "/users/%7Eme")))
        #expect(matches(request("GET", "/a%2Fb"), request("GET", "/a%2fb")))
        #expect(!matches(request("GET", "/a%2Fb"), request("GET", "/a/b")))
        #expect(!matches(request("GET", "/users/1"), request("GET", "/users/2")))
    }

    @Test("query is a multiset: order does not matter, repeats do")
    func query() {
        #expect(matches(request("GET", "/s?a=1&b=2&a=3"), request("GET", "/s?b=2&a=3&a=1")))
        #expect(!matches(request("GET", "/s?a=1&a=1"), request("GET", "/s?a=1")))
        #expect(!matches(request("GET", "/s?a=1"), request("GET", "/s?a=2")))
        #expect(matches(request("GET", "/s?q=a+b"), request("GET", "/s?q=a%20b")))
        #expect(matches(request("GET", "/s"), request("GET", "/s?")))
    }

    @Test("ignored query parameters are left out")
    func ignoredQuery() {
        let options = MatchOptions(ignoredQueryParameters: ["ts"])
        #expect(matches(request("GET", "/s?a=1&ts=100"), request("GET", "/s?ts=200&a=1"), options: options))
        #expect(matches(request("GET", "/s?a=1&ts=100"), request("GET", "/s?a=1"), options: options))
    }

    @Test("JSON bodies compare by value: key order, whitespace and number spelling do not matter")
    func jsonByValue() {
        let recorded = request("POST", "/j", headers: json, body: #"{"a": 1, "b": {"c": [1, 2.5, {"d": null}]}}"#)
        #expect(matches(recorded, request("POST", "/j", headers: json, body: #"{"b":{"c":[1.0,2.50,{"d":null}]},"a":1e0}"#)))
        #expect(!matches(recorded, request("POST", "/j", headers: json, body: #"{"a": 1, "b": {"c": [2.5, 1, {"d": null}]}}"#)))
        #expect(!matches(recorded, request("POST", "/j", headers: json, body: #"{"a": "1", "b": {"c": [1, 2.5, {"d": null}]}}"#)))
    }

    @Test("vendor JSON media types compare by value too")
    func vendorJSON() {
        let vendor: HeaderList = ["content-type": "application/vnd.api+json; charset=utf-8"]
        #expect(matches(request("POST", "/j", headers: vendor, body: #"{"a":1,"b":2}"#),
                        request("POST", "/j", headers: vendor, body: #"{"b":2,"a":1}"#)))
    }

    @Test("ignored JSON paths, direct and at any depth")
    func ignoredJSONPaths() throws {
        let options = MatchOptions(ignoredJSONPaths: [try JSONPath("$.meta.requestId"), try JSONPath("$..nonce")])
        let recorded = request("POST", "/j", headers: json, body: #"{"meta": {"requestId": "r1", "v": 1}, "items": [{"nonce": 1, "x": 1}]}"#)
        let incoming = request("POST", "/j", headers: json, body: #"{"meta": {"requestId": "r2", "v": 1}, "items": [{"nonce": 9, "x": 1}]}"#)
        #expect(matches(recorded, incoming, options: options))
        #expect(!matches(recorded, incoming))
    }

    @Test("form bodies compare as multisets of pairs, with ignored fields")
    func formBodies() {
        #expect(matches(request("POST", "/f", headers: form, body: "name=Shawn&sex=1"),
                        request("POST", "/f", headers: form, body: "sex=1&name=Shawn")))
        #expect(!matches(request("POST", "/f", headers: form, body: "name=Shawn&sex=1"),
                         request("POST", "/f", headers: form, body: "name=Shawn&sex=2")))
        #expect(matches(request("POST", "/f", headers: form, body: "name=Shawn&csrf=a"),
                        request("POST", "/f", headers: form, body: "csrf=b&name=Shawn"),
                        options: MatchOptions(ignoredFormFields: ["csrf"])))
    }

    @Test("multipart bodies compare part by part, whatever the boundary")
    func multipart() {
        func upload(boundary: String, content: String) -> CassetteRequest {
            let body = [
                "--\(boundary)", "Content-Disposition: form-data; name=\"description\"", "", "two files",
                "--\(boundary)", "Content-Disposition: form-data; name=\"files\"; filename=\"a.txt\"", "Content-Type: text/plain", "", content,
                "--\(boundary)--", "",
            ].joined(separator: "\r\n")
            return request("POST", "/upload", headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], body: body)
        }
        #expect(matches(upload(boundary: "AaB03x", content: "hello"), upload(boundary: "----WebKitFormBoundary7MA4YWxk", content: "hello")))
        #expect(!matches(upload(boundary: "AaB03x", content: "hello"), upload(boundary: "other", content: "HELLO")))
    }

    @Test("other bodies compare byte for byte, including non-UTF-8 and empty ones")
    func bytes() {
        let binary: HeaderList = ["Content-Type": "application/octet-stream"]
        let a = CassetteRequest(method: "PUT", url: "/b", headers: binary, body: Body(Data([0xFF, 0x00, 0xC3])))
        var b = a
        #expect(matches(a, b))
        b.body = Body(Data([0xFF, 0x00, 0xC4]))
        #expect(!matches(a, b))
        #expect(matches(request("POST", "/e"), request("POST", "/e", body: "")))
        #expect(!matches(request("POST", "/e"), request("POST", "/e", body: "x")))
        // Invalid JSON under a JSON content type falls back to bytes.
        #expect(matches(request("POST", "/j", headers: json, body: "{oops"), request("POST", "/j", headers: json, body: "{oops")))
    }

    @Test("ignoring the body matches any body")
    func ignoreBody() {
        #expect(matches(request("POST", "/x", body: "a"), request("POST", "/x", body: "b"), options: MatchOptions(ignoreBody: true)))
    }

    @Test("named headers must also match, whatever the case of their names")
    func matchedHeaders() {
        let options = MatchOptions(matchedHeaders: ["X-Tenant"])
        #expect(matches(request("GET", "/h", headers: ["x-tenant": "a"]), request("GET", "/h", headers: ["X-TENANT": "a"]), options: options))
        #expect(!matches(request("GET", "/h", headers: ["x-tenant": "a"]), request("GET", "/h", headers: ["X-Tenant": "b"]), options: options))
        #expect(matches(request("GET", "/h", headers: ["x-tenant": "a"]), request("GET", "/h", headers: ["X-Tenant": "b"])))
    }

    @Test("values removed by redaction are ignored, so live requests match their redacted recording")
    func redactedValuesIgnored() {
        let recorded = request("POST", "/login?token=<redacted>&id=1",
                               headers: ["Content-Type": "application/json", "Authorization": "<redacted>"],
                               body: #"{"user": "a", "password": "<redacted>"}"#)
        let live = request("POST", "/login?id=1&token=s3cr3t",
                           headers: ["Content-Type": "application/json", "Authorization": "Bearer abc"],
                           body: #"{"password": "hunter2", "user": "a"}"#)
        #expect(matches(recorded, live, options: MatchOptions(matchedHeaders: ["Authorization"])))
        let otherUser = request("POST", "/login?id=1&token=s3cr3t", headers: ["Content-Type": "application/json"],
                                body: #"{"password": "hunter2", "user": "b"}"#)
        #expect(!matches(recorded, otherUser))
    }

    @Test("among equal requests the index keeps recorded order")
    func candidateOrder() {
        let interactions = (0..<5).map { interaction(request("GET", "/poll"), body: "\($0)") }
        #expect(Matcher(interactions: interactions).matches(request("GET", "/poll")) == [0, 1, 2, 3, 4])
    }
}
