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

    @Test("the interaction writer writes exactly what JSONEncoder writes, for any text, numbers and shape")
    func interactionWriterMatchesJSONEncoder() async {
        let texts = Self.bytes.map { String(decoding: $0.prefix(40), as: UTF8.self) }.array(of: 6...6)
        let numbers = Gen<Double>.value(in: -1e7...1e22).array(of: 3...3)
        let shape = Gen<UInt8>.value(in: 0...255)
        await propertyCheck(count: 300, input: texts, numbers, Self.bytes, shape) { texts, numbers, body, shape in
            // Canonically equivalent names ("é" composed and decomposed) sort apart, by their bytes;
            // ASCII names (the writer's fast path) group repeated names in order, whatever their place.
            let headers: HeaderList = shape & 128 == 0
                ? [texts[2]: texts[3], "Content-Type": texts[4], "content-type": "a", texts[3]: texts[2],
                   "e\u{301}": "1", "\u{e9}": "2", "\u{e9}a": "3"]
                : ["X-B": texts[3], "Content-Type": texts[4], "content-type": "a", "X-B": texts[2], "A": texts[5], "X-B": "3"]
            // A generated name may equal a fixed one ("a"): a dictionary literal would trap on the duplicate.
            let members: [String: JSONValue] = ["b": .array([.integer(1), .double(numbers[0]), .string(texts[5])]),
                                                "a": .object([:]), "c": .array([]), "d": .null]
            let value = JSONValue.object(members.merging([texts[2]: .bool(true)]) { $1 })
            var json = Body(value.compactData, style: .json)
            if shape & 1 == 0 { json = Body(Data(body)) }
            var interaction = Interaction(
                recordedAt: shape & 2 == 0 ? texts[0] : nil,
                request: CassetteRequest(method: texts[0], url: texts[1], headers: shape & 4 == 0 ? headers : [:], body: json),
                response: CassetteResponse(status: 100 + Int(shape) % 500, headers: headers, body: Body(text: texts[4])),
                timing: shape & 8 == 0 ? Timing(firstByteMs: numbers[0], totalMs: (numbers[1] * 10).rounded() / 10) : nil)
            if shape & 16 == 0 { interaction.delayMs = numbers[2] }
            if shape & 32 == 0 {
                interaction.chunks = shape & 64 == 0 ? [] : [StreamChunk(atMs: numbers[1], data: Data(body)),
                                                            StreamChunk(atMs: 0, data: Data(texts[5].utf8))]
            }
            if shape & 128 == 0 {
                interaction.websocket = [
                    WebSocketMessage(from: .server, atMs: numbers[0], content: .text(texts[5])),
                    WebSocketMessage(from: .client, atMs: numbers[1], content: .binary(Data(body))),
                    WebSocketMessage(from: .client, atMs: numbers[2], content: .close(code: shape & 2 == 0 ? nil : 1000, reason: texts[3])),
                ]
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let expected = try? encoder.encode(interaction)
            let written = InteractionWriter.encode(interaction, indent: 0, sideFiles: nil)
            #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")
        }
    }
}
