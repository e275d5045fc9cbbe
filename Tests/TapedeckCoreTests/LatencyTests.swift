import Foundation
import Testing
@testable import TapedeckCore

@Suite("Deterministic latency")
struct LatencyTests {
    let timed = Interaction(request: request("GET", "/t"), response: CassetteResponse(status: 200),
                            timing: Timing(firstByteMs: 12.5, totalMs: 40),
                            chunks: [StreamChunk(atMs: 0, data: Data("a".utf8)), StreamChunk(atMs: 20, data: Data("b".utf8))])

    @Test("the four options", arguments: [
        ("none", 0.0, 0.0, [0.0, 0.0]),
        ("recorded", 12.5, 40, [12.5, 32.5]),
        ("fixed:100", 100, 100, [100, 100]),
        ("scale:2", 25, 80, [25, 65]),
    ])
    func options(text: String, head: Double, total: Double, chunks: [Double]) throws {
        let delay = LatencyModel(try LatencyOption(parsing: text)).delay(for: timed, index: 0, playCount: 0)
        #expect(delay.head == .microseconds(Int64(head * 1000)))
        #expect(delay.total == .microseconds(Int64(total * 1000)))
        #expect(delay.chunks == chunks.map { .microseconds(Int64($0 * 1000)) })
    }

    @Test("a hand-set delayMs wins over the option")
    func handSetDelay() {
        var interaction = timed
        interaction.delayMs = 7
        let delay = LatencyModel(.fixed(milliseconds: 100)).delay(for: interaction, index: 0, playCount: 0)
        #expect(delay.head == .milliseconds(7))
        #expect(delay.total == .microseconds(34_500))
    }

    @Test("bad latency text is refused with the accepted forms")
    func badOption() {
        for text in ["fast", "fixed:", "fixed:-1", "scale:x", "recorded:2"] {
            #expect(throws: LatencyParseError.self) { try LatencyOption(parsing: text) }
        }
        #expect((try? LatencyOption(parsing: "fixed:2.5")) == .fixed(milliseconds: 2.5))
    }

    @Test("jitter is a pure function of seed, interaction and play count, within its bounds")
    func jitter() {
        let model = LatencyModel(.fixed(milliseconds: 100), jitter: Jitter(percent: 20, seed: 42))
        let first = (0..<50).map { model.delay(for: timed, index: $0 % 5, playCount: $0 / 5).head }
        let second = (0..<50).map { model.delay(for: timed, index: $0 % 5, playCount: $0 / 5).head }
        #expect(first == second)
        #expect(first.allSatisfy { $0 >= .milliseconds(80) && $0 <= .milliseconds(120) })
        #expect(Set(first).count > 40)
        let otherSeed = LatencyModel(.fixed(milliseconds: 100), jitter: Jitter(percent: 20, seed: 43))
        #expect((0..<50).map { otherSeed.delay(for: timed, index: $0 % 5, playCount: $0 / 5).head } != first)
    }

    @Test("the player hands out the delay for the play it serves")
    func playerDelay() {
        let player = Player(cassette: cassette([timed]), name: "t", options: PlaybackOptions(latency: LatencyModel(.recorded)))
        guard case .played(let playback) = player.play(request("GET", "/t")) else { Issue.record("miss"); return }
        #expect(playback.delay.head == .microseconds(12_500))
    }
}
