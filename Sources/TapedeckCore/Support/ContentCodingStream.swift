import CZlib
import Foundation

/// Compresses or decompresses a body piece by piece with gzip or deflate, so a body too large to
/// hold whole (a side file) can be encoded while it is sent or decoded while it is recorded.
///
/// Feed the pieces in order to ``update(_:)`` and call ``finish()`` once; the outputs joined are the
/// whole result. Not thread-safe: one stream per body.
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
    /// zlib's state, at a fixed address (zlib keeps a pointer back to it).
    private let stream: UnsafeMutablePointer<z_stream>
    private var started = false
    private var ended = false
    /// For deflate decoding: the first bytes, held until they show zlib-wrapped or raw deflate.
    private var pending = Data()

    /// Creates a stream.
    package init(_ coding: ContentCoding, direction: Direction) {
        self.coding = coding
        self.direction = direction
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

    /// Takes the next piece and returns the output it produced (possibly none yet).
    package func update(_ input: Data) throws(ContentCodingError) -> Data {
        guard !ended || direction == .decode else { throw error("the stream is already finished") }
        if direction == .decode && coding == .deflate && !started {
            pending.append(input)
            guard pending.count >= 2 else { return Data() }
            let held = pending
            pending = Data()
            try start(windowBits: Self.isZlibWrapped(held) ? 15 : -15)
            return try run(held, flush: Z_NO_FLUSH)
        }
        if !started { try start(windowBits: nil) }
        return try run(input, flush: Z_NO_FLUSH)
    }

    /// Ends the body and returns the last output; throws when coded input stopped short.
    package func finish() throws(ContentCodingError) -> Data {
        if !started {
            if direction == .decode && coding == .deflate && !pending.isEmpty {
                try start(windowBits: -15)
                let held = pending
                pending = Data()
                let output = try run(held, flush: Z_FINISH)
                guard ended else { throw error("the stream is truncated") }
                return output
            }
            try start(windowBits: nil)
        }
        let output = try run(Data(), flush: Z_FINISH)
        if direction == .decode && !ended { throw error("the stream is truncated") }
        return output
    }

    /// Whether the first two bytes are a zlib header (RFC 1950): deflate, and a multiple of 31.
    private static func isZlibWrapped(_ data: Data) -> Bool {
        let first = data[data.startIndex], second = data[data.startIndex + 1]
        return first & 0x0f == 8 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
    }

    private func start(windowBits: Int32?) throws(ContentCodingError) {
        let size = Int32(MemoryLayout<z_stream>.size)
        let status: Int32
        switch direction {
        case .encode:
            status = deflateInit2_(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, coding == .gzip ? 15 + 16 : 15, 8,
                                   Z_DEFAULT_STRATEGY, ZLIB_VERSION, size)
        case .decode:
            status = inflateInit2_(stream, windowBits ?? (coding == .gzip ? 15 + 16 : 15), ZLIB_VERSION, size)
        }
        guard status == Z_OK else { throw error("zlib did not start") }
        started = true
    }

    private func run(_ input: Data, flush: Int32) throws(ContentCodingError) -> Data {
        if ended { return Data() }
        var output = Data()
        let status = ZlibPass.run(stream, direction == .encode ? .deflate : .inflate, input: input, flush: flush, into: &output)
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
        return output
    }

    private func error(_ message: String) -> ContentCodingError {
        ContentCodingError(coding: coding, operation: direction == .encode ? "encode" : "decode", message: message)
    }
}
