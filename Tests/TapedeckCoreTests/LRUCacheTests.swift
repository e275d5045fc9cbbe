import Testing
@testable import TapedeckCore

@Suite("LRUCache: per-session state kept in place")
struct LRUCacheTests {
    /// A value that can tell whether it was copied: its box is shared by every copy.
    private struct Counts {
        final class Box {}
        var box = Box()
        var counts: [Int: Int] = [:]

        /// Whether no other copy of this value exists.
        mutating func isUnique() -> Bool { isKnownUniquelyReferenced(&box) }
    }

    @Test("a change through the subscript is made in place, not on a copy of the value")
    func changesInPlace() {
        var cache = LRUCache<String, Counts>(capacity: 4)
        var wasUnique: [Bool] = []
        for play in 0..<3 {
            // The first use stores the default; the later ones change what is kept.
            cache["session", default: Counts()].counts[play] = play
            wasUnique.append(cache["session", default: Counts()].isUnique())
        }
        #expect(wasUnique == [true, true, true], "a copy of the value was changed: each use would cost the whole value")
        #expect(cache.peek("session")?.counts == [0: 0, 1: 1, 2: 2])
    }

    @Test("a change through the subscript counts as a use, so the least used key goes first")
    func changeCountsAsUse() {
        var cache = LRUCache<Int, Int>(capacity: 2)
        cache[1, default: 0] += 1
        cache[2, default: 0] += 1
        cache[1, default: 0] += 1
        cache[3, default: 0] += 1
        #expect(cache.peek(1) == 2)
        #expect(cache.peek(2) == nil, "key 2 was used least recently")
        #expect(cache.peek(3) == 1)
    }
}
