import Foundation
import Testing
@testable import TapedeckCore

@Suite("Reversible secrets")
struct SecretsTests {
    let secrets = try! Secrets(["API_KEY": "k3y/live+value", "USER_PASS": "hunter22"])

    @Test("every place a value appears becomes <NAME>, in the request and the response")
    func concealEverywhere() {
        let interaction = Interaction(
            request: CassetteRequest(method: "POST", url: "https://api.example.test/v1?key=k3y%2Flive%2Bvalue&raw=k3y/live+value",
                                     headers: ["X-Key": "k3y/live+value", "Authorization": "Basic hunter22"],
                                     body: Body(text: #"{"password":"hunter22","note":"k3y/live+value"}"#)),
            response: CassetteResponse(status: 200, headers: ["X-Echo": "hunter22"], body: Body(text: "echo k3y/live+value")),
            chunks: [StreamChunk(atMs: 0, data: Data("data: hunter22\n\n".utf8))])
        let concealed = secrets.conceal(interaction)
        #expect(concealed.request.url == "https://api.example.test/v1?key=<API_KEY>&raw=<API_KEY>")
        #expect(concealed.request.headers["X-Key"] == "<API_KEY>")
        #expect(concealed.request.headers["Authorization"] == "Basic <USER_PASS>")
        #expect(concealed.request.body.text == #"{"password":"<USER_PASS>","note":"<API_KEY>"}"#)
        #expect(concealed.response.headers["X-Echo"] == "<USER_PASS>")
        #expect(concealed.response.body.text == "echo <API_KEY>")
        #expect(concealed.chunks?.first.map { String(decoding: $0.data, as: UTF8.self) } == "data: <USER_PASS>\n\n")
    }

    @Test("a gRPC body is concealed and revealed message by message, each length prefix made to hold again")
    func grpcMessagesKeepTheirFraming() throws {
        func framed(_ texts: [String], compressed: Bool = false) -> Data {
            GRPCMessage.frame(texts.map { GRPCMessage(bytes: Data($0.utf8), compressed: compressed) })
        }
        let grpc: HeaderList = ["Content-Type": "application/grpc"]
        let live = ["login hunter22", "key k3y/live+value"], stored = ["login <USER_PASS>", "key <API_KEY>"]
        let interaction = Interaction(
            request: CassetteRequest(method: "POST", url: "/demo.Auth/Login", headers: grpc, body: Body(framed(live), style: .grpc)),
            response: CassetteResponse(status: 200, headers: grpc, body: Body(framed(["ok hunter22"]), style: .grpc)),
            chunks: [StreamChunk(atMs: 0, data: framed(["token k3y/live+value"])), StreamChunk(atMs: 5, data: framed(["bye"]))])
        let concealed = secrets.conceal(interaction)
        // Replaced across the framing, the prefixes would still give the live values' lengths.
        #expect(GRPCMessage.split(concealed.request.body.data)?.map { String(decoding: $0.bytes, as: UTF8.self) } == stored)
        #expect(concealed.response.body.data == framed(["ok <USER_PASS>"]))
        #expect(concealed.chunks?.map(\.data) == [framed(["token <API_KEY>"]), framed(["bye"])])

        #expect(secrets.reveal(concealed.request).body.data == framed(live))
        // On the wire: a message sent compressed is not text, and is passed as it came.
        #expect(secrets.revealing(framed(stored), asGRPCMessages: true) == framed(live))
        #expect(secrets.revealing(framed(stored, compressed: true), asGRPCMessages: true) == framed(stored, compressed: true))
    }

    @Test("a gRPC message the client compressed is revealed too, and goes on uncompressed only when it held a placeholder")
    func revealCompressedGRPCMessages() throws {
        func gzipped(_ text: String) throws -> GRPCMessage {
            GRPCMessage(bytes: try ContentCoding.gzip.encode(Data(text.utf8)), compressed: true)
        }
        let holding = try gzipped("login <USER_PASS>"), plain = try gzipped("nothing secret")
        let notGzip = GRPCMessage(bytes: Data("not gzip <API_KEY>".utf8), compressed: true)
        let wire = GRPCMessage.frame([holding, plain, notGzip])

        let revealed = try #require(GRPCMessage.split(secrets.revealing(wire, asGRPCMessages: true, encoding: "gzip")))
        #expect(revealed == [GRPCMessage(bytes: Data("login hunter22".utf8), compressed: false), plain, notGzip],
                "the placeholder's message goes uncompressed; the others byte for byte as they came")
        #expect(secrets.revealing(wire, asGRPCMessages: true, encoding: "snappy") == wire, "an encoding this server cannot read: as it came")
    }

    @Test("reveal puts the live values back into a request")
    func revealRequest() {
        let stored = CassetteRequest(method: "GET", url: "https://api.example.test/v1?key=<API_KEY>",
                                     headers: ["Authorization": "Basic <USER_PASS>"], body: Body(text: "<API_KEY>"))
        let live = secrets.reveal(stored)
        #expect(live.url == "https://api.example.test/v1?key=k3y/live+value")
        #expect(live.headers["Authorization"] == "Basic hunter22")
        #expect(live.body.text == "k3y/live+value")
        #expect(secrets.conceal(live) == stored)
    }

    @Test("short values, bad names and unset variables are refused with what to fix")
    func refusals() throws {
        #expect(throws: SecretsError.tooShort(name: "PIN", length: 4)) { try Secrets(["PIN": "1234"]) }
        #expect(throws: SecretsError.badName("api-key")) { try Secrets(["api-key": "long enough"]) }
        #expect(throws: SecretsError.unset(name: "TOKEN", variable: "NOPE")) {
            try Secrets(specifications: ["TOKEN=NOPE"], environment: [:])
        }
        #expect(throws: SecretsError.badSpecification("TOKEN")) { try Secrets(specifications: ["TOKEN"], environment: [:]) }
        #expect(try Secrets(specifications: ["TOKEN=T"], environment: ["T": "abcdefgh"]).entries.map(\.name) == ["TOKEN"])
    }
}
