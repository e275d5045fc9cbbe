#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import TapedeckCore

extension BodyFile {
    /// The size of the pieces a body file is read and sent in.
    static let pieceSize = 64 * 1024

    /// Reads the file in pieces on SwiftNIO's thread pool, handing each to `piece` on `loop`; the
    /// next is read once the future `piece` returns has succeeded (so a writer waits for its peer).
    /// Opened without following a link: a file replaced by one cannot hand over another file's bytes.
    func readPieces(on loop: any EventLoop, allocator: ByteBufferAllocator,
                    _ piece: @escaping @Sendable (ByteBuffer) -> EventLoopFuture<Void>) -> EventLoopFuture<Void> {
        let fileIO = NonBlockingFileIO(threadPool: .singleton)
        return fileIO.openFile(_deprecatedPath: url.path, mode: .read, flags: .posix(flags: O_NOFOLLOW, mode: 0),
                               eventLoop: loop).flatMap { fileHandle in
            fileIO.readChunked(fileHandle: fileHandle, byteCount: size, chunkSize: Self.pieceSize, allocator: allocator,
                               eventLoop: loop, chunkHandler: piece)
                .always { _ in try? fileHandle.close() }
        }
    }
}
