import Foundation
import NIOCore
import NIOEmbedded
import Tapedeck
@_spi(Fuzz) import TapedeckServer

/// The replay server every input is served by: the example cassette, `--cassette-dir cassettes`,
/// a small body limit; built once (it is immutable and thread-safe).
private let fuzzedServer: FuzzedReplayServer = {
    let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let cassettes = root.appending(path: "cassettes", directoryHint: .isDirectory)
    let home = FileManager.default.temporaryDirectory.appending(path: "tapedeck-fuzz-ca", directoryHint: .isDirectory)
    do {
        return try FuzzedReplayServer(cassette: cassettes.appending(path: "example.json"), cassetteDirectory: cassettes,
                                      authorityHome: home, maxBodySize: 64 * 1024)
    } catch {
        fatalError("cannot load the example cassette: \(error)")
    }
}()

/// libFuzzer entry: the input is the bytes a client sends on one connection. They go through
/// the server's real handlers (HTTP parsing, limits, control headers, admin, matching, the
/// 599 diagnosis) on an embedded channel. Any answer or close is fine; a crash is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func requestPathFuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let channel = EmbeddedChannel()
    do {
        try fuzzedServer.configure(channel)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    } catch {
        fatalError("cannot set up the embedded connection: \(error)")
    }
    var buffer = channel.allocator.buffer(capacity: count)
    buffer.writeBytes(UnsafeBufferPointer(start: start, count: count))
    // Split the input in two writes, as TCP may, so partial-head states are exercised too.
    let split = count > 1 ? Int(start[0]) % count : count
    for part in [buffer.getSlice(at: 0, length: split), buffer.getSlice(at: split, length: count - split)] {
        guard let part, part.readableBytes > 0, channel.isActive else { continue }
        do { try channel.writeInbound(part) } catch { break }
        channel.embeddedEventLoop.run()
    }
    channel.embeddedEventLoop.advanceTime(by: .seconds(1))
    // TAPEDECK_FUZZ_ECHO=1 prints what the server answered, to check a seed by hand.
    let echo = ProcessInfo.processInfo.environment["TAPEDECK_FUZZ_ECHO"] == "1"
    while let answer = try? channel.readOutbound(as: ByteBuffer.self) {
        if echo { print(String(decoding: answer.readableBytesView, as: UTF8.self), terminator: "") }
    }
    _ = try? channel.finish(acceptAlreadyClosed: true)
    return 0
}
