import Foundation
import Testing
@testable import TapedeckCore

/// The secrets' values replaced in a body read piece by piece: the same result as a body replaced
/// whole by ``Secrets``, wherever the pieces end, a value cut in two included.
@Suite("Secrets replaced piece by piece")
struct StreamingReplacementTests {
    static let secrets = try! Secrets(["API_KEY": "k3y-v4lu3-long", "TOKEN": "tok/en+1", "SHORT": "abcdef"])

    /// A body holding each value (the token also percent-encoded) several times, at the start,
    /// the end and next to each other, among bytes that begin like a value and are not one.
    static let body = Data("k3y-v4lu3-long and abcde abcdef tok/en+1 tok%2Fen%2B1 k3y-v4lu3-lon abcdefabcdef k3y-v4lu3-long".utf8)

    private func replaced(_ data: Data, pieceSize: Int) throws -> Data {
        var replacement = try #require(Self.secrets.concealingStream())
        var output = Data()
        for start in stride(from: 0, to: data.count, by: pieceSize) {
            output.append(replacement.update(data[start..<min(start + pieceSize, data.count)]))
        }
        output.append(replacement.finish())
        return output
    }

    @Test("every value replaced, the longest first, the same in pieces of any size as whole")
    func sameAsWholeBody() throws {
        let expected = Self.secrets.conceal(CassetteRequest(method: "POST", url: "/", body: Body(Self.body))).body.data
        #expect(String(decoding: expected, as: UTF8.self)
            == "<API_KEY> and abcde <SHORT> <TOKEN> <TOKEN> k3y-v4lu3-lon <SHORT><SHORT> <API_KEY>")
        for size in [1, 2, 3, 5, 13, Self.body.count] {
            #expect(try replaced(Self.body, pieceSize: size) == expected, "pieces of \(size)")
        }
    }

    @Test("a value cut at every place between two pieces is still found")
    func valueAcrossPieces() throws {
        let data = Self.body
        let expected = try replaced(data, pieceSize: data.count)
        for split in 0...data.count {
            var replacement = try #require(Self.secrets.concealingStream())
            var output = replacement.update(data[..<split])
            output.append(replacement.update(data[split...]))
            output.append(replacement.finish())
            #expect(output == expected, "split at \(split)")
        }
    }

    @Test("no secrets, no replacement; bytes without a value pass as they came")
    func nothingToReplace() throws {
        #expect(Secrets.none.concealingStream() == nil)
        let plain = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        #expect(try replaced(plain, pieceSize: 100) == plain)
    }
}
