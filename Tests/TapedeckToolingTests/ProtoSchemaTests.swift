import Foundation
import TapedeckCore
import TapedeckTestSupport
@testable import TapedeckTooling
import Testing

/// A descriptor set written by protoc (`Tests/Fixtures/proto/greeter.protoset`) read through
/// swift-protobuf's descriptor types, and messages encoded by Python's protobuf read as the JSON
/// protobuf's own `json_format` prints for them.
@Suite struct ProtoSchemaTests {
    private let file = ExampleUpstream.repositoryRoot.appending(path: "Tests/Fixtures/proto/greeter.protoset")

    @Test func everyKindOfFieldReadsAsProtobufsOwnJSONMapping() throws {
        let schema = try ProtoSchema(descriptorSetAt: file)
        #expect(schema.methods["/demo.Greeter/SayHello"] == ProtoSchema.Method(input: ".demo.HelloRequest", output: ".demo.HelloReply"))
        // HelloRequest with every field set, as Python's protobuf encodes it; the JSON is its json_format output.
        let request = Data(hex: "0a03416461120b07fdffffffffffffffff011801220c0a047465616d1204626c75652a0b0a044f736c6f1596000000300939000000000000e03f420201024801")
        let expected = try #require(JSONValue(parsing: Data(#"""
            {"name": "Ada", "luckyNumbers": [7, -3], "mood": "HAPPY", "tags": {"team": "blue"}, "address": {"city": "Oslo", "zip": 150},
             "offset": "-5", "ratio": 0.5, "avatar": "AQI=", "formal": true}
            """#.utf8)))
        #expect(schema.json(request, path: "/demo.Greeter/SayHello", isRequest: true) == expected)
        #expect(schema.json(Data(hex: "0a0968656c6c6f2041646110b5b8f0fe2d"), path: "/demo.Greeter/SayHello", isRequest: false)
            == JSONValue.object(["message": .string("hello Ada"), "visits": .string("12345678901")]))
    }

    @Test func unknownFieldsShowByNumberAndWhatIsNotSuchAMessageIsNil() throws {
        let schema = try ProtoSchema(descriptorSetAt: file)
        // Field 15 (varint 9) is not in HelloRequest.
        #expect(schema.json(Data(hex: "0a034164617809"), type: ".demo.HelloRequest")
            == JSONValue.object(["name": .string("Ada"), "#15": .string("9")]))
        #expect(schema.json(Data(hex: "0a0541"), type: ".demo.HelloRequest") == nil, "a length past the end")
        #expect(schema.json(Data(hex: "0a02c328"), type: ".demo.HelloRequest") == nil, "a string that is not UTF-8")
        #expect(schema.json(Data(hex: "0d01020304"), type: ".demo.HelloRequest") == nil, "fixed32 where a string belongs")
        #expect(schema.json(Data(hex: "0a03416461"), path: "/demo.Greeter/Unknown", isRequest: true) == nil)
        // A gRPC body: length-prefixed messages, read all or not at all.
        let body = Data(hex: "00000000050a03416461" + "00000000050a03426f62")
        #expect(schema.json(grpcBody: body, path: "/demo.Greeter/SayHello", isRequest: true)
            == .array([.object(["name": .string("Ada")]), .object(["name": .string("Bob")])]))
        #expect(schema.json(grpcBody: body + Data(hex: "0000000001ff"), path: "/demo.Greeter/SayHello", isRequest: true) == nil)
    }

    @Test func aMessageNestedPastTheLimitIsNotRead() throws {
        var schema = ProtoSchema()
        schema.messages[".t.Node"] = [ProtoSchema.Field(number: 1, name: "child", type: .message, typeName: ".t.Node")]
        var deep = Data()
        for _ in 0..<70 { deep = Data([0x0a]) + Self.varint(deep.count) + deep }
        #expect(schema.json(deep, type: ".t.Node") == nil, "70 levels, past the 64 allowed")
        var shallow = Data()
        for _ in 0..<10 { shallow = Data([0x0a]) + Self.varint(shallow.count) + shallow }
        #expect(schema.json(shallow, type: ".t.Node") != nil)
    }

    @Test func aFileThatIsNotADescriptorSetIsRefusedSayingHow() throws {
        let directory = TestFiles.folder.appending(path: "tapedeck-proto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bogus = directory.appending(path: "not.protoset")
        try Data("{\"version\": 1}".utf8).write(to: bogus)
        #expect { try ProtoSchema(descriptorSetAt: bogus) } throws: { error in
            (error as? ToolingError)?.description.contains("protoc --descriptor_set_out") == true
        }
        #expect { try ProtoSchema(descriptorSetAt: directory.appending(path: "missing.protoset")) } throws: { error in
            (error as? ToolingError)?.isBadInput == false
        }
    }

    private static func varint(_ value: Int) -> Data {
        var value = UInt64(value), bytes: [UInt8] = []
        repeat {
            bytes.append(UInt8(value & 0x7f) | (value > 0x7f ? 0x80 : 0))
            value >>= 7
        } while value > 0
        return Data(bytes)
    }
}

private extension Data {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }
}
