import Testing
@testable import TapedeckCore

/// The hop-by-hop rule (RFC 9110 section 7.6.1) that decides which headers a cassette never stores
/// and the recording proxy never forwards.
@Suite struct HeaderListTests {
    @Test func hopByHopNamesAreKnownInAnyLetterCase() {
        for name in ["Connection", "keep-alive", "TE", "Trailer", "trailers", "Transfer-Encoding", "UPGRADE",
                     "Proxy-Authorization", "proxy-connection", "Proxy-Authenticate"] {
            #expect(HeaderList.isHopByHop(name), "\(name)")
        }
    }

    @Test func endToEndNamesAreKept() {
        // Some share a first letter, or a prefix, with a hop-by-hop name.
        for name in ["Content-Type", "Cookie", "Tapedeck-Session", "Te2", "Upgrade-Insecure-Requests", "Proxy",
                     "Keep", "Host", "Accept", "", "@", "ü-header"] {
            #expect(!HeaderList.isHopByHop(name), "\(name)")
        }
    }

    @Test func removingHopByHopKeepsTheOthersInOrder() {
        let headers: HeaderList = ["Host": "a", "Connection": "close", "X-One": "1", "proxy-authorization": "p", "X-Two": "2"]
        #expect(headers.removingHopByHop.fields.map(\.name) == ["Host", "X-One", "X-Two"])
    }

    @Test func namesTheConnectionFieldListsAreHopByHopToo() {
        let headers: HeaderList = ["Connection": "keep-alive, X-Trace", "x-trace": "1", "connection": " HTTP2-Settings ",
                                   "HTTP2-Settings": "AAMA", "X-Traced": "kept", "Keep-Alive": "timeout=5", "Accept": "*/*"]
        #expect(headers.removingHopByHop.fields.map(\.name) == ["X-Traced", "Accept"])
        #expect(!(["X-Trace": "1"] as HeaderList).hopByHop.contains("X-Trace"), "only the message's own Connection field nominates")
    }
}
