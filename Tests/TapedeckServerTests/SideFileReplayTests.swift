import Foundation
import TapedeckCore
import TapedeckServer
import TapedeckTestSupport
import Testing

/// The replay server sends a side-file body from disk: byte-exact over plain HTTP and through an
/// intercepted CONNECT (TLS), without a body for HEAD, decoded and with its Content-Length whatever
/// the client accepts.
@Suite struct SideFileReplayTests {
    /// 3 MiB of varied bytes, past the 1 MiB side-file threshold.
    static let large = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })

    private func largeCassette(in directory: URL) throws -> URL {
        let file = directory.appending(path: "large.json")
        var gzip = CassetteResponse(status: 200, body: Body(Self.large))
        gzip.headers.set(name: "Content-Encoding", value: "gzip")
        try CassetteCodec().save(Cassette(interactions: [
            Interaction(request: CassetteRequest(method: "GET", url: "http://files.example.test/large.bin"),
                        response: CassetteResponse(status: 200, body: Body(Self.large))),
            Interaction(request: CassetteRequest(method: "GET", url: "https://secure.example.test/large.bin"),
                        response: CassetteResponse(status: 200, body: Body(Self.large))),
            Interaction(request: CassetteRequest(method: "GET", url: "http://files.example.test/large.gz"), response: gzip),
        ]), to: file)
        #expect(try CassetteCodec().load(file).interactions.allSatisfy { $0.response.body.file != nil })
        return file
    }

    @Test(.requires(.curl)) func sideFileBodyIsSentFromDiskOverHTTPAndTLS() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try largeCassette(in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let plain = try await Curl.run([harness.base + "/large.bin"])
            #expect(plain.status == 0, "\(plain.error)")
            #expect(plain.output == Self.large)

            let head = try await Curl.run(["--head", harness.base + "/large.bin"])
            #expect(head.text.lowercased().contains("content-length: \(Self.large.count)"))

            let caFile = directory.appending(path: "ca.pem")
            _ = try await Curl.run(["--output", caFile.path, harness.base + "/__tapedeck/ca.pem"])
            let secure = try await Curl.run(["--proxy", harness.base, "--cacert", caFile.path, "https://secure.example.test/large.bin"])
            #expect(secure.status == 0, "\(secure.error)")
            #expect(secure.output == Self.large)

            let headers = directory.appending(path: "headers.txt")
            let decoded = try await Curl.run(["--compressed", "--dump-header", headers.path, harness.base + "/large.gz"])
            #expect(decoded.output == Self.large)
            let fields = try String(contentsOf: headers, encoding: .utf8).lowercased()
            #expect(!fields.contains("content-encoding") && fields.contains("content-length: \(Self.large.count)"))
        }
    }
}
