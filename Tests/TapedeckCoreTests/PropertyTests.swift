import Foundation
import PropertyBased
import Testing
@testable import TapedeckCore

@Suite("Properties")
struct PropertyTests {
    static let bytes = Gen<UInt8>.value(in: 0...255).array(of: 0...600)

    @Test("any bytes survive a cassette round trip exactly, as request and response bodies")
    func bodyRoundTrip() async {
        await propertyCheck(count: 200, input: Self.bytes) { bytes in
            let data = Data(bytes)
            let original = cassette([Interaction(request: CassetteRequest(method: "PUT", url: "/b", body: Body(data)),
                                                 response: CassetteResponse(status: 200, body: Body(data)))])
            let codec = CassetteCodec()
            let decoded = try? codec.decode(try codec.encode(original).bytes)
            #expect(decoded?.interactions.first?.request.body.data == data)
            #expect(decoded?.interactions.first?.response.body.data == data)
        }
    }

    @Test("gzip and deflate give back any bytes")
    func contentCodingRoundTrip() async {
        await propertyCheck(count: 200, input: Self.bytes) { bytes in
            let data = Data(bytes)
            for coding in ContentCoding.allCases {
                #expect((try? coding.decode(try coding.encode(data))) == data)
            }
        }
    }

    @Test("query matching ignores parameter order")
    func queryOrder() async {
        let pairs = Gen.letterOrNumber.string(of: 1...4).array(of: 1...8)
        await propertyCheck(count: 200, input: pairs) { names in
            let query = names.enumerated().map { "\($1)=\($0 % 3)" }
            let recorded = request("GET", "/q?" + query.joined(separator: "&"))
            let shuffled = request("GET", "/q?" + query.shuffled().joined(separator: "&"))
            #expect(Matcher(interactions: [interaction(recorded)]).matches(shuffled) == [0])
        }
    }

    @Test("JSON matching ignores key order and formatting")
    func jsonKeyOrder() async {
        let keys = Gen.letter.string(of: 1...6).set(ofAtMost: 1...10)
        await propertyCheck(count: 200, input: keys) { keys in
            let members = keys.enumerated().map { "\"\($1)\": {\"n\": \($0), \"list\": [\($0), \"x\"]}" }
            let json: HeaderList = ["Content-Type": "application/json"]
            let recorded = request("POST", "/j", headers: json, body: "{" + members.joined(separator: ",") + "}")
            let reordered = request("POST", "/j", headers: json, body: "{\n  " + members.shuffled().joined(separator: ",\n  ") + "\n}")
            #expect(Matcher(interactions: [interaction(recorded)]).matches(reordered) == [0])
        }
    }
}
