import CZlib
import Foundation

/// Compresses or decompresses a body piece by piece with gzip or deflate, so a body too large to
/// hold whole (a side file) can be encoded while it is sent or decoded while it is recorded.
///
/// Feed the pieces in order to ``update(_:emit:)`` and call ``finish(emit:)`` once; the outputs
/// emitted, in order, are the whole result. The output comes in pieces of at most 64 KiB, however
/// much one input piece inflates (1 MiB of gzip can be 1 GiB of zeros), and a decoder throws once
/// it has decoded past its limit. Not thread-safe: one stream per body.
package final class ContentCodingStream {
    /// Which way the bytes go.
    package enum Direction: Sendable {
        /// Plain bytes in, coded bytes out.
        case encode
        /// Coded bytes in, plain bytes out.
        case decode
    }

    /// The coding.
    package let coding: ContentCoding
    /// Which way the bytes go.
    package let direction: Direction
    /// The most bytes a decoder gives before it throws (``ContentCodingError/isPastLimit``); nil for none.
    package let limit: Int?
    /// How many bytes it gave so far.
    private var produced = 0
    /// zlib's state, at a fixed address (zlib keeps a pointer back to it).
    private let stream: UnsafeMutablePointer<z_stream>
    private var started = false
    private var ended = false
    /// For decoding: the first bytes, held until there are two, which show zlib-wrapped or raw deflate.
    private var pending = Data()

    /// Creates an encoder: plain bytes in, `coding`'s bytes out.
    package convenience init(encoding coding: ContentCoding) {
        self.init(coding, direction: .encode, limit: nil)
    }

    /// Creates a decoder that throws once it has given more than `limit` bytes; nil only for bytes
    /// Tapedeck made itself (a decoder of what a client, an upstream or a cassette sent needs a bound).
    package convenience init(decoding coding: ContentCoding, limit: Int? = ContentCoding.decodedLimit) {
        self.init(coding, direction: .decode, limit: limit)
    }

    private init(_ coding: ContentCoding, direction: Direction, limit: Int?) {
        self.coding = coding
        self.direction = direction
        self.limit = limit
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if started {
            switch direction {
            case .encode: deflateEnd(stream)
            case .decode: inflateEnd(stream)
            }
        }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Takes the next piece and hands the output it produced (possibly none yet) to `emit`.
    package func update(_ input: Data, emit: (Data) throws -> Void) throws {
        guard !ended || direction == .decode else { throw error("the stream is already finished") }
        if direction == .decode && !started {
            // Only the first byte of a body that comes one byte at a time is ever held (and copied).
            let held = pending.isEmpty ? input : pending + input
            guard held.count >= 2 else { pending = held; return }
            pending = Data()
            try start(prefix: held)
            return try run(held, flush: Z_NO_FLUSH, emit: emit)
        }
        if !started { try start(prefix: Data()) }
        try run(input, flush: Z_NO_FLUSH, emit: emit)
    }

    /// Ends the body and hands the last output to `emit`; throws when coded input stopped short.
    package func finish(emit: (Data) throws -> Void) throws {
        if !started {
            let held = pending
            pending = Data()
            try start(prefix: held)
            if !held.isEmpty { try run(held, flush: Z_NO_FLUSH, emit: emit) }
        }
        try run(Data(), flush: Z_FINISH, emit: emit)
        if direction == .decode && !ended { throw error("the stream is truncated") }
    }

    /// ``update(_:emit:)``, the output collected.
    package func update(_ input: Data) throws(ContentCodingError) -> Data {
        try collecting { try update(input, emit: $0) }
    }

    /// ``finish(emit:)``, the output collected.
    package func finish() throws(ContentCodingError) -> Data {
        try collecting { try finish(emit: $0) }
    }

    /// A whole body in one piece: ``update(_:)`` then ``finish()``, the outputs joined.
    package func whole(_ input: Data) throws(ContentCodingError) -> Data {
        var output = try update(input)
        output.append(try finish())
        return output
    }

    /// Runs `step` with an `emit` that appends to the output it returns; only zlib throws then.
    private func collecting(_ step: ((Data) -> Void) throws -> Void) throws(ContentCodingError) -> Data {
        var output = Data()
        do {
            try step { output.append($0) }
        } catch let error as ContentCodingError {
            throw error
        } catch {
            preconditionFailure("appending cannot throw: \(error)")
        }
        return output
    }

    /// Starts zlib; a decoder reads its window bits from the first bytes, `prefix`.
    private func start(prefix: Data) throws(ContentCodingError) {
        let size = Int32(MemoryLayout<z_stream>.size)
        let status: Int32
        switch direction {
        case .encode:
            status = deflateInit2_(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, coding.encodingWindowBits, 8,
                                   Z_DEFAULT_STRATEGY, ZLIB_VERSION, size)
        case .decode:
            status = inflateInit2_(stream, coding.decodingWindowBits(startingWith: prefix), ZLIB_VERSION, size)
        }
        guard status == Z_OK else { throw error("zlib did not start") }
        started = true
    }

    private func run(_ input: Data, flush: Int32, emit: (Data) throws -> Void) throws {
        if ended { return }
        let status = try ZlibPass.run(stream, direction == .encode ? .deflate : .inflate, input: input, flush: flush,
                                      limit: limit.map { $0 - produced }) { piece in
            produced += piece.count
            try emit(piece)
        }
        if let limit, produced > limit {
            throw ContentCodingError.pastLimit(limit, coding: coding)
        }
        switch status {
        case Z_STREAM_END:
            ended = true
        case Z_OK:
            break
        case Z_BUF_ERROR where stream.pointee.avail_in == 0:
            break // nothing more to do until more input comes
        default:
            throw error("zlib status \(status)")
        }
    }

    private func error(_ message: String) -> ContentCodingError {
        ContentCodingError(coding: coding, operation: direction == .encode ? "encode" : "decode", message: message)
    }
}
