import Foundation
import TapedeckTestSupport
import Testing

/// The findings of the attacker's probe that the server's front answers (issue "Safe on a
/// developer's machine"), against a real `tapedeck` process over raw sockets: each test names
/// its row, and each failed before the fix.
@Suite struct AdminGuardTests {
    private let example = HardeningFixtures.exampleCassette.path

    private func exchange(_ port: Int, _ method: String, _ path: String, host: String? = nil,
                          headers: [String] = [], body: String = "") async throws -> (status: Int?, text: String) {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        for header in headers { request += header + "\r\n" }
        if !body.isEmpty || method == "POST" { request += "Content-Length: \(body.utf8.count)\r\n" }
        let answer = try await RawSocket.exchange(port: port, request + "\r\n" + body)
        return (answer.data.httpStatus, String(decoding: answer.data, as: UTF8.self))
    }

    private static let stub = #"{"request": {"path": "/planted"}, "response": {"status": 200, "body": {"text": "planted"}}}"#

    @Test func row1CrossSiteWritesAreRefusedAndChangeNothing() async throws {
        let server = try TapedeckProcess(["replay", "--port", "0", example])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        // A no-cors fetch from a page on another loopback port: its Origin gives it away.
        let planted = try await exchange(port, "POST", "/__tapedeck/stubs",
                                         headers: ["Origin: http://127.0.0.1:9", "Content-Type: application/json"], body: Self.stub)
        #expect(planted.status == 403)
        #expect(planted.text.contains("Origin http://127.0.0.1:9 is another site's"))
        // A form with enctype=text/plain and no Origin (an old browser): the type gives it away.
        let form = try await exchange(port, "POST", "/__tapedeck/stubs", headers: ["Content-Type: text/plain"], body: Self.stub)
        #expect(form.status == 415)
        _ = try await exchange(port, "GET", "/plaintext?name=Shawn")
        let reset = try await exchange(port, "POST", "/__tapedeck/reset", headers: ["Content-Type: application/x-www-form-urlencoded"])
        #expect(reset.status == 415)
        #expect(try await exchange(port, "GET", "/__tapedeck/journal").text.contains("/plaintext"), "the journal was not emptied")
        #expect(try await exchange(port, "GET", "/planted").status == 599, "no stub was added")
        // The server's own page and test code still can.
        let own = try await exchange(port, "POST", "/__tapedeck/stubs",
                                     headers: ["Origin: http://127.0.0.1:\(port)", "Content-Type: application/json"], body: Self.stub)
        #expect(own.status == 201)
        #expect(try await exchange(port, "OPTIONS", "/__tapedeck/stubs", headers: ["Origin: http://127.0.0.1:9"]).status == 403)
    }

    @Test func row3AnAdminRequestForAnotherHostIsRefused() async throws {
        let server = try TapedeckProcess(["replay", "--port", "0", "--admin-host", "tapedeck.internal", example])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        #expect(try await exchange(port, "GET", "/__tapedeck/health", host: "attacker.example").status == 403)
        #expect(try await exchange(port, "GET", "/__tapedeck/health", host: "attacker.example:\(port)").status == 403)
        #expect(try await exchange(port, "POST", "/__tapedeck/stubs", host: "attacker.example:\(port)",
                                   headers: ["Content-Type: application/json"], body: Self.stub).status == 403)
        #expect(try await exchange(port, "GET", "/__tapedeck/health", host: "localhost:\(port + 1)").status == 403)
        for own in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "tapedeck.internal:\(port)"] {
            #expect(try await exchange(port, "GET", "/__tapedeck/health", host: own).status == 200, "\(own)")
        }
        // Requests that are not for the admin API are served whatever their Host.
        #expect(try await exchange(port, "GET", "/plaintext?name=Shawn", host: "attacker.example").status == 200)
    }

    @Test func row5OutOfRangeNumbersAreRefusedAtStart() async throws {
        let latency = try TapedeckProcess(["replay", "--port", "0", "--latency", "fixed:1e16", example])
        #expect(latency.waitForExit() == 2)
        #expect(latency.stop().contains("fixed:MS (0 to 86400000)"))
        let server = try TapedeckProcess(["replay", "--port", "0", example])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        let slow = #"{"request": {"path": "/slow"}, "response": {"status": 200, "delayMs": 1e13}}"#
        let added = try await exchange(port, "POST", "/__tapedeck/stubs", headers: ["Content-Type: application/json"], body: slow)
        #expect(added.status == 400)
        #expect(added.text.contains("delayMs"))
        #expect(try await exchange(port, "GET", "/__tapedeck/health").status == 200, "the server is still up")
    }

    @Test func row7ACachedLoginDoesNotLetAnotherSiteIn() async throws {
        let server = try TapedeckProcess(["replay", "--port", "0", "--proxy-auth", "alice:s3cret", example])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        let login = "Authorization: Basic \(Data("alice:s3cret".utf8).base64EncodedString())"
        let crossSite = try await exchange(port, "POST", "/__tapedeck/stubs",
                                           headers: [login, "Origin: http://127.0.0.1:9", "Content-Type: application/json"], body: Self.stub)
        #expect(crossSite.status == 403)
        #expect(try await exchange(port, "GET", "/__tapedeck/health", headers: [login]).status == 200)
    }

    @Test func row14ProxyCredentialsComeFromTheEnvironmentOrAFile() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "proxy-auth")
        try Data("carol:from-file\n".utf8).write(to: file)
        let plaintext = "GET http://api.example.test/plaintext?name=Shawn HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n"
        for (arguments, environment, credentials) in [
            ([String](), ["TAPEDECK_PROXY_AUTH": "bob:from-env"], "bob:from-env"),
            (["--proxy-auth-file", file.path], [:], "carol:from-file"),
        ] {
            let server = try TapedeckProcess(["replay", "--port", "0"] + arguments + [example], environment: environment)
            defer { server.stop() }
            let port = try server.waitUntilListening()
            #expect(try await RawSocket.exchange(port: port, plaintext + "\r\n").data.httpStatus == 407)
            let proof = "Proxy-Authorization: Basic \(Data(credentials.utf8).base64EncodedString())\r\n\r\n"
            #expect(try await RawSocket.exchange(port: port, plaintext + proof).data.httpStatus == 200)
            #expect(!server.process.arguments.joined().contains(credentials), "the credentials are not on the command line")
        }
        let bad = try TapedeckProcess(["replay", "--port", "0", example], environment: ["TAPEDECK_PROXY_AUTH": "no-colon"])
        #expect(bad.waitForExit() == 2)
        #expect(bad.stop().contains("TAPEDECK_PROXY_AUTH: proxy credentials must be USER:PASSWORD"))
    }

    @Test func row15BytesSentWithTheConnectGoIntoTheTunnel() async throws {
        let home = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try TapedeckProcess(["replay", "--port", "0", example], environment: ["TAPEDECK_HOME": home.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        let answer = try await RawSocket.exchange(port: port, "CONNECT api.example.test:80 HTTP/1.1\r\nHost: api.example.test:80\r\n\r\n"
            + "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n")
        let text = String(decoding: answer.data, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.hasSuffix("Hello Shawn!"), "\(text)")
    }

    @Test func aSignalRightAfterTheListeningLineStopsTheServerCleanly() throws {
        // The window the probe found: SIGTERM as soon as the line is out. 20 starts, each must exit 0.
        for signal in [SIGTERM, SIGINT, SIGTERM, SIGINT] + Array(repeating: SIGTERM, count: 16) {
            let server = try TapedeckProcess(["replay", "--port", "0", example])
            _ = try server.waitUntilListening()
            server.signal(signal)
            #expect(server.waitForExit(timeout: 20) == 0, "signal \(signal): \(server.standardErrorSoFar())")
        }
    }
}
