import Logging
import NIOCore
import NIOHTTP1
import TapedeckCore

extension ResponseSink {
    /// Sends a side file as the body of the response whose head was written, then ends it: the
    /// file is read in pieces on SwiftNIO's thread pool and each piece is written as the client
    /// takes it (reading waits while the connection is not writable), so a body of any size goes
    /// out in bounded memory, over plain TCP and TLS alike. A file that cannot be read, or turns
    /// out shorter than the Content-Length sent, or whose bytes do not have the SHA-256 it is named
    /// after (logged, naming the file), closes the connection, so the client sees a cut body.
    static func writeFile(_ file: BodyFile, answer: Int, trailers: HTTPHeaders?, handler: ExchangeHandler, context: ChannelHandlerContext) {
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler, context), eventLoop: loop)
        let sent = NIOLoopBoundBox(0, eventLoop: loop)
        let hash = NIOLoopBoundBox(SHA256(), eventLoop: loop)
        file.readPieces(on: loop, allocator: context.channel.allocator) { piece in
            let (handler, context) = bound.value
            guard context.channel.isActive else { return loop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
            sent.value += piece.readableBytes
            piece.withUnsafeReadableBytes { hash.value.update(UnsafeRawBufferPointer($0)) }
            let written = loop.makePromise(of: Void.self)
            handler.writeBody(piece, answer: answer, context: context, flush: true, promise: written)
            return context.channel.isWritable ? loop.makeSucceededVoidFuture() : written.futureResult
        }.whenComplete { result in
            let (handler, context) = bound.value
            let digest = hash.value.finalize().hexadecimal
            if case .success = result, sent.value == file.size, digest == file.digest || !file.isNamedByContent {
                handler.writeEnd(answer: answer, context: context, trailers: trailers, promise: nil)
            } else {
                if sent.value == file.size, digest != file.digest {
                    Logger(label: "tapedeck.replay").error("\(SideFileError.digestMismatch(file.url.path, found: digest))")
                }
                context.flush()
                context.close(promise: nil)
            }
        }
    }
}
