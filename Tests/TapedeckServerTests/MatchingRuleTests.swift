import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TapedeckCore
import TapedeckServer
import TapedeckTestSupport
import Testing

/// Each matching rule of the specification, end to end over sockets.
@Suite struct MatchingRuleTests {
    @Test func methodMustMatch() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                let response = try await Clients.send(client, .DELETE, harness.base + "/plaintext?name=Shawn")
                #expect(response.status == 599)
                let diagnosis = try JSONDecoder().decode(MatchDiagnosis.self, from: response.body)
                #expect(diagnosis.nearest.first?.failedRules == ["method"])
            }
        }
    }

    @Test func pathMustMatch() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                #expect(try await Clients.send(client, .GET, harness.base + "/plaintext/?name=Shawn").status == 599)
                #expect(try await Clients.send(client, .GET, harness.base + "/%70laintext?name=Shawn").status == 200)
            }
        }
    }

    @Test func queryMatchesAsMultisetInAnyOrder() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(#"""
        {"version": 1, "interactions": [{"request": {"method": "GET", "url": "http://h.test/q?a=1&b=2&a=3"},
          "response": {"status": 200, "body": {"text": "multiset"}}}]}
        """#, named: "query.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                #expect(try await Clients.send(client, .GET, harness.base + "/q?b=2&a=3&a=1").status == 200)
                #expect(try await Clients.send(client, .GET, harness.base + "/q?a=1&b=2").status == 599)
                #expect(try await Clients.send(client, .GET, harness.base + "/q?a=1&b=2&a=3&a=3").status == 599)
            }
        }
    }

    @Test func formBodyMatchesAsMultiset() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                let form = [("Content-Type", "application/x-www-form-urlencoded")]
                let reordered = try await Clients.send(client, .POST, harness.base + "/postName", headers: form, body: Data("sex=1&name=Shawn".utf8))
                #expect(reordered.status == 200)
                let changed = try await Clients.send(client, .POST, harness.base + "/postName", headers: form, body: Data("sex=2&name=Shawn".utf8))
                #expect(changed.status == 599)
                let diagnosis = try JSONDecoder().decode(MatchDiagnosis.self, from: changed.body)
                #expect(diagnosis.nearest.first?.failedRules == ["body"])
            }
        }
    }

    @Test func jsonBodyMatchesByValue() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                let json = [("Content-Type", "application/json")]
                let same = #"{ "active": true, "count": 3.0, "user": { "tags": ["swift", "http"], "name": "Shawn" } }"#
                let response = try await Clients.send(client, .POST, harness.base + "/postBodyData", headers: json, body: Data(same.utf8))
                #expect(response.status == 200)
                #expect(String(decoding: response.body, as: UTF8.self).contains(#""id":42"#))
                let other = #"{"user":{"name":"Shawn","tags":["http","swift"]},"count":3,"active":true}"#
                let miss = try await Clients.send(client, .POST, harness.base + "/postBodyData", headers: json, body: Data(other.utf8))
                #expect(miss.status == 599)
                let diagnosis = try JSONDecoder().decode(MatchDiagnosis.self, from: miss.body)
                #expect(diagnosis.nearest.first?.failedRules == ["body"])
                #expect(diagnosis.nearest.first?.differences.first?.contains("user.tags") == true)
            }
        }
    }

    @Test func multipartMatchesPartByPartWhateverTheBoundary() async throws {
        let recorded = try Fixtures.example().interactions[3].request
        let oldBoundary = "----TapedeckExampleBoundary7MA4YWxkTrZu0gW"
        let newBoundary = "xyzNewBoundary0123456789"
        let body = recorded.body.data.replacing(Data(oldBoundary.utf8), with: Data(newBoundary.utf8))
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                let response = try await Clients.send(client, .POST, harness.base + "/upload",
                                                      headers: [("Content-Type", "multipart/form-data; boundary=\(newBoundary)")], body: body)
                #expect(response.status == 200)
                #expect(String(decoding: response.body, as: UTF8.self).contains("notes.txt"))
                let altered = body.replacing(Data("Two example files".utf8), with: Data("Two other files!!".utf8))
                let miss = try await Clients.send(client, .POST, harness.base + "/upload",
                                                  headers: [("Content-Type", "multipart/form-data; boundary=\(newBoundary)")], body: altered)
                #expect(miss.status == 599)
            }
        }
    }

    @Test func otherBodiesMatchByteForByte() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(#"""
        {"version": 1, "interactions": [{"request": {"method": "PUT", "url": "http://h.test/blob",
            "headers": {"Content-Type": ["application/octet-stream"]}, "body": {"base64": "AAEC/w=="}},
          "response": {"status": 204}}]}
        """#, named: "blob.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                let octets = [("Content-Type", "application/octet-stream")]
                let same = try await Clients.send(client, .PUT, harness.base + "/blob", headers: octets, body: Data([0, 1, 2, 255]))
                #expect(same.status == 204)
                let other = try await Clients.send(client, .PUT, harness.base + "/blob", headers: octets, body: Data([0, 1, 2, 254]))
                #expect(other.status == 599)
                let diagnosis = try JSONDecoder().decode(MatchDiagnosis.self, from: other.body)
                #expect(diagnosis.nearest.first?.failedRules == ["body"])
            }
        }
    }

    @Test func ignoredQueryParameterAndJSONPathAreSkipped() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Fixtures.optionsCassette, named: "options.json", in: directory)
        var options = PlaybackOptions()
        options.match.ignoredQueryParameters = ["cache"]
        options.match.ignoredJSONPaths = [try JSONPath("$.meta.requestId"), try JSONPath("$..nonce")]
        try await ReplayHarness.run(files: [file], options: options) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                #expect(try await Clients.send(client, .GET, harness.base + "/search?q=swift&cache=999").status == 200)
                #expect(try await Clients.send(client, .GET, harness.base + "/search?q=swift").status == 200)
                #expect(try await Clients.send(client, .GET, harness.base + "/search?q=rust&cache=123").status == 599)
                let event = #"{"kind":"click","meta":{"requestId":"zzz","nonce":99}}"#
                let response = try await Clients.send(client, .POST, harness.base + "/events",
                                                      headers: [("Content-Type", "application/json")], body: Data(event.utf8))
                #expect(response.status == 202)
            }
        }
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                #expect(try await Clients.send(client, .GET, harness.base + "/search?q=swift&cache=999").status == 599)
            }
        }
    }

    @Test func ignoreBodyMatchesAnyBody() async throws {
        var options = PlaybackOptions()
        options.match.ignoreBody = true
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], options: options) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                let response = try await Clients.send(client, .POST, harness.base + "/postName", body: Data("anything".utf8))
                #expect(response.status == 200)
            }
        }
    }

    @Test func matchedHeaderChoosesTheInteraction() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Fixtures.optionsCassette, named: "options.json", in: directory)
        var options = PlaybackOptions()
        options.match.matchedHeaders = ["X-Version"]
        try await ReplayHarness.run(files: [file], options: options) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                let one = try await Clients.send(client, .GET, harness.base + "/versioned", headers: [("X-Version", "1")])
                #expect(String(decoding: one.body, as: UTF8.self) == "version one")
                let two = try await Clients.send(client, .GET, harness.base + "/versioned", headers: [("x-version", "2")])
                #expect(String(decoding: two.body, as: UTF8.self) == "version two")
                #expect(try await Clients.send(client, .GET, harness.base + "/versioned", headers: [("X-Version", "3")]).status == 599)
            }
        }
    }

    @Test(.requires(.curl)) func originFormMatchesAnyRecordedHostButProxyRequestsMatchTheHost() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let proxied = try await Curl.run(["--proxy", harness.base, "http://api.example.test/plaintext?name=Shawn"])
            #expect(proxied.text == "Hello Shawn!")
            let otherHost = try await Curl.run(["--proxy", harness.base, "--write-out", "\n%{http_code}", "http://other.example.test/plaintext?name=Shawn"])
            #expect(otherHost.text.hasSuffix("\n599"))
            #expect(otherHost.text.contains("\"host\""))
            let otherPort = try await Curl.run(["--proxy", harness.base, "--write-out", "\n%{http_code}", "http://api.example.test:81/plaintext?name=Shawn"])
            #expect(otherPort.text.hasSuffix("\n599"))
        }
    }
}
