import NIOCore
import NIOEmbedded

extension EmbeddedChannel {
    /// Everything written out so far, as text, after running the loop (the flushes a kept-alive
    /// connection defers to the end of the loop's turn, ``DeferredFlush``, included).
    func writtenText() throws -> String {
        embeddedEventLoop.run()
        var text = ""
        while let data = try readOutbound(as: IOData.self) {
            if case .byteBuffer(let buffer) = data { text += String(buffer: buffer) }
        }
        return text
    }
}
