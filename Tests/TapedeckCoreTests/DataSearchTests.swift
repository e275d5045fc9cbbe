import Foundation
import TapedeckTestSupport
import Testing

/// The tests' byte search (``Data/occurrences(of:)``, ``Data/replacing(_:with:)``), which the
/// hardening suite runs over bodies of tens of MiB: every occurrence, none overlapping, at the edges too.
@Suite struct DataSearchTests {
    @Test func everyOccurrenceIsFoundOnceAtTheEdgesAndNoneOverlaps() {
        let data = Data("abcab-abab-aaa-ab".utf8)
        #expect(data.occurrences(of: "ab") == 5)
        #expect(data.occurrences(of: "aa") == 1, "aaa holds one, not two overlapping")
        #expect(data.occurrences(of: "abcab-abab-aaa-ab") == 1 && data.occurrences(of: "abcab-abab-aaa-abc") == 0)
        #expect(data.occurrences(of: "x") == 0 && Data().occurrences(of: "a") == 0)
        #expect(data.replacing(Data("ab".utf8), with: Data("<AB>".utf8)) == Data("<AB>c<AB>-<AB><AB>-aaa-<AB>".utf8))
        #expect(data.replacing(Data("zz".utf8), with: Data("y".utf8)) == data)
    }

    @Test func aSliceIsSearchedFromItsOwnStart() {
        let slice = Data("xxab-ab".utf8).dropFirst(2)
        #expect(slice.occurrences(of: "ab") == 2)
        #expect(slice.replacing(Data("ab".utf8), with: Data("c".utf8)) == Data("c-c".utf8))
    }
}
