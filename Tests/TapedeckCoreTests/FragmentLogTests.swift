import Foundation
import Testing
@testable import TapedeckCore

@Suite("Fragment logs: encoded interactions kept in runs of bytes")
struct FragmentLogTests {
    /// Fragments of 100 to 99,999 bytes, so that runs of 1 MiB end in different places.
    static func fragment(_ index: Int) -> [UInt8] {
        Array(repeating: UInt8(ascii: "a") + UInt8(index % 26), count: 100 + (index * 7919) % 100_000)
    }

    /// The bytes of `pieces` one after another, as a digest: comparing megabytes with `#expect`
    /// would describe them whole on a failure.
    static func joined(_ pieces: [FragmentLog.Piece]) -> String {
        var hasher = SHA256()
        for piece in pieces { piece.withUnsafeBytes { hasher.update($0) } }
        return hasher.finalize().hexadecimal
    }

    @Test("the pieces from any index are the separators and fragments from there, across runs")
    func piecesFromAnyIndex() {
        var log = FragmentLog()
        var expected: [[UInt8]] = []
        for index in 0..<120 {
            log.append { $0 += Self.fragment(index) }
            expected.append(Array(",\n    ".utf8) + Self.fragment(index))
        }
        #expect(log.count == 120)
        for index in [0, 1, 17, 59, 60, 118, 119] {
            #expect(Self.joined(log.pieces(from: index)) == Self.joined(expected[index...].map { $0[...] }))
        }
        #expect(log.pieces(from: 120).isEmpty)
        #expect(expected.reduce(0) { $0 + $1.count } > 3 << 20, "the fragments span several runs")
    }

    @Test("releasing keeps every fragment from the index given, and appending goes on after it")
    func releaseKeepsWhatIsNeeded() {
        var log = FragmentLog()
        for index in 0..<80 { log.append { $0 += Self.fragment(index) } }
        let before = log
        log.release(below: 70)
        for index in 70..<80 { log.append { $0 += Self.fragment(index + 80) } }
        let appended = (70..<80).map { (Array(",\n    ".utf8) + Self.fragment($0 + 80))[...] }
        #expect(Self.joined(log.pieces(from: 70)) == Self.joined(before.pieces(from: 70) + appended))
        #expect(Self.joined(before.pieces(from: 0)) == Self.joined((0..<80).map { (Array(",\n    ".utf8) + Self.fragment($0))[...] }),
                "a copy taken before is untouched by releasing and appending")
    }

    @Test("appending after a seal leaves the runs a saved copy holds where they are, and the bytes whole")
    func appendingAfterASealCopiesNothing() {
        var log = FragmentLog()
        for index in 0..<3 { log.append { $0 += Self.fragment(index) } }
        log.seal()
        let saved = log
        for index in 3..<6 { log.append { $0 += Self.fragment(index) } }
        let address = { (piece: FragmentLog.Piece) in piece.withUnsafeBufferPointer { $0.baseAddress } }
        #expect(address(log.pieces(from: 0)[0]) == address(saved.pieces(from: 0)[0]),
                "the run the copy holds is still shared: the append went to a new run")
        let expected = (0..<6).map { (Array(",\n    ".utf8) + Self.fragment($0))[...] }
        #expect(Self.joined(log.pieces(from: 0)) == Self.joined(expected))
        #expect(Self.joined(log.pieces(from: 4)) == Self.joined(Array(expected[4...])))
        #expect(Self.joined(saved.pieces(from: 0)) == Self.joined(Array(expected[..<3])))
    }

    @Test("the first item of a file has no comma before it; later ones keep theirs")
    func firstItemDropsTheComma() {
        var log = FragmentLog()
        log.append { $0 += Array("{}".utf8) }
        log.append { $0 += Array("[]".utf8) }
        #expect(FragmentLog.items(log.pieces(from: 0), from: 0).flatMap { $0 } == Array("\n    {},\n    []".utf8))
        #expect(FragmentLog.items(log.pieces(from: 1), from: 1).flatMap { $0 } == Array(",\n    []".utf8))
    }
}
