import Foundation
import NIOCore
import TapedeckCore

/// Takes a request body as it arrives: in memory up to ``threshold`` bytes, then in an
/// ``UploadSpool``, so a body is taken in time linear in its size and an upload of any size holds
/// at most the threshold in memory.
struct RequestBodyCollector {
    /// A whole body: in memory, or in a file once it passed the threshold.
    enum Collected {
        case inMemory(ByteBuffer)
        case spooled(SpooledBody)
    }

    /// The most bytes kept in memory; the side-file threshold, past which a cassette keeps a body
    /// in a file too.
    let threshold: Int
    /// Where spools make their folders.
    let root: URL
    private var buffer = ByteBuffer()
    /// Where the body goes once it passed the threshold.
    private(set) var spool: UploadSpool?

    init(threshold: Int, root: URL) {
        self.threshold = threshold
        self.root = root
    }

    /// Takes the next piece of the body.
    mutating func append(_ piece: ByteBuffer) throws(SideFileError) {
        if let spool { return try spool.append(piece) }
        if buffer.readableBytes + piece.readableBytes <= threshold {
            var piece = piece
            if buffer.readableBytes == 0 { buffer = piece } else { buffer.writeBuffer(&piece) }
            return
        }
        let started = try UploadSpool(root: root)
        try started.append(buffer)
        try started.append(piece)
        buffer = ByteBuffer()
        spool = started
    }

    /// The whole body; the collector is empty again.
    mutating func finish() throws(SideFileError) -> Collected {
        defer { self = RequestBodyCollector(threshold: threshold, root: root) }
        if let spool { return .spooled(try spool.finish()) }
        return .inMemory(buffer)
    }

    /// Drops what was taken (the request was refused, or its client left): a spool's file goes too.
    mutating func discard() {
        self = RequestBodyCollector(threshold: threshold, root: root)
    }
}
