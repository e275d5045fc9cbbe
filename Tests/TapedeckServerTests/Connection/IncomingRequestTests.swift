import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
@testable import TapedeckServer
import Testing

/// The one value every door hands the modes: swift-http-types' `HTTPRequest`, made from SwiftNIO's
/// head in one place (``IncomingRequest/init(_:body:tunnelOrigin:arrival:)``).
@Suite struct IncomingRequestTests {
    private func incoming(_ head: HTTPRequestHead, tunnelOrigin: String? = nil) throws -> IncomingRequest {
        try IncomingRequest(head, body: ByteBuffer(), tunnelOrigin: tunnelOrigin, arrival: .now())
    }

    @Test func anOriginFormRequestTakesItsHostAsAuthorityAndKeepsItsFieldsInOrder() throws {
        let request = try incoming(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/items?page=2",
                                                   headers: ["Host": "api.test:8080", "X-B": "2", "Content-Type": "text/plain", "x-a": "1"]))
        #expect(request.head.method == .post)
        #expect(request.head.scheme == nil)
        #expect(request.head.authority == "api.test:8080")
        #expect(request.head.path == "/v1/items?page=2")
        #expect(request.head.headerFields.map(\.name.rawName) == ["X-B", "Content-Type", "x-a"])
        #expect(request.target == "/v1/items?page=2")
        #expect(request.path == "/v1/items")
        #expect(request.url == "/v1/items?page=2")
        // The core's form puts Host back first, spelled as HTTP/1.1 spells it.
        #expect(request.cassetteRequest().headers.map(\.name) == ["Host", "X-B", "Content-Type", "x-a"])
    }

    @Test func anAbsoluteFormTargetGivesItsSchemeAndAuthorityAndComesBackUnchanged() throws {
        for target in ["http://API.test:8080/p?q=1", "http://api.test", "http://api.test?x=1", "https://[::1]:9/a#f"] {
            let request = try incoming(HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: ["Host": "elsewhere"]))
            #expect(request.target == target)
            #expect(request.url == target)
            #expect(request.head.authority != "elsewhere", "the target's authority wins over Host (RFC 9112 section 3.2.2)")
        }
        let request = try incoming(HTTPRequestHead(version: .http1_1, method: .GET, uri: "http://api.test:8080/p", headers: [:]))
        #expect(request.head.scheme == "http")
        #expect(request.head.authority == "api.test:8080")
        #expect(request.head.path == "/p")
    }

    @Test func aRequestInATunnelIsAddressedToTheTunnelsOrigin() throws {
        let request = try incoming(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/x", headers: ["Host": "api.test"]),
                                   tunnelOrigin: "https://api.test")
        #expect(request.url == "https://api.test/x")
        #expect(!request.isAdmin)
    }

    @Test func twoHostHeadersAreMalformed() {
        #expect(throws: IncomingRequest.Malformed.self) {
            try incoming(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Host": "a", "host": "b"]))
        }
    }

    @Test func trailersAreTakenOverHTTP2AndWithTEOverHTTP1() throws {
        let plain = try incoming(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Host": "a"]))
        let asking = try incoming(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Host": "a", "TE": "gzip, trailers"]))
        let stream = try incoming(HTTPRequestHead(version: HTTPVersion(major: 2, minor: 0), method: .GET, uri: "/", headers: ["host": "a"]))
        #expect(!plain.takesTrailers)
        #expect(asking.takesTrailers)
        #expect(stream.takesTrailers)
    }

    /// The same request sent over HTTP/1.1 and as an HTTP/2 stream (decoded by SwiftNIO's HTTP/2
    /// codec, as the server's pipeline does) reaches the modes as the same `HTTPRequest` (the
    /// `Transfer-Encoding: chunked` the translation adds to the stream's head is not part of it).
    @Test func anHTTP2StreamAndAnHTTP1RequestAreTheSameValue() throws {
        let stream = EmbeddedChannel(handler: HTTP2FramePayloadToHTTP1ServerCodec())
        let headers: HPACKHeaders = [":method": "POST", ":scheme": "http", ":authority": "api.test", ":path": "/demo.Greeter/SayHello",
                                     "content-type": "application/grpc", "te": "trailers"]
        try stream.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: headers)))
        guard case .head(let http2Head) = try #require(try stream.readInbound(as: HTTPServerRequestPart.self)) else {
            Issue.record("the codec gave no head")
            return
        }
        let overHTTP2 = try incoming(http2Head)
        let overHTTP1 = try incoming(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/demo.Greeter/SayHello",
                                                     headers: ["Host": "api.test", "content-type": "application/grpc", "te": "trailers"]))
        #expect(overHTTP2.head == overHTTP1.head)
        #expect(overHTTP2.version.major == 2)
        #expect(overHTTP2.cassetteRequest().headers.map(\.name).first == "host", "HTTP/2 spells its names in lower case")
        _ = try stream.finish()
    }
}
