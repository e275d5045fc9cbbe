import CZlib
import Foundation

/// One pass of zlib over some input: the loop every zlib user here shares (content codings,
/// `permessage-deflate`), feeding `input` and collecting output in pieces until zlib has nothing
/// more to give for this flush.
enum ZlibPass {
    /// Whether to compress or decompress.
    enum Step {
        case deflate, inflate
    }

    /// Runs `step` over all of `input` with `flush`, appending the output to `output`; stops early
    /// once the output is past `limit`. Returns zlib's last status.
    static func run(_ stream: UnsafeMutablePointer<z_stream>, _ step: Step, input: Data, flush: Int32, limit: Int? = nil,
                    into output: inout Data) -> Int32 {
        run(stream, step, input: input, flush: flush, limit: limit.map { $0 - output.count }) { output.append($0) }
    }

    /// Runs `step` over all of `input` with `flush`, handing the output to `emit` in pieces of at
    /// most 64 KiB as zlib makes them, so a small input that inflates a thousandfold is never held
    /// whole; stops early once more than `limit` bytes were emitted, or when `emit` throws.
    /// Returns zlib's last status.
    static func run(_ stream: UnsafeMutablePointer<z_stream>, _ step: Step, input: Data, flush: Int32, limit: Int? = nil,
                    emit: (Data) throws -> Void) rethrows -> Int32 {
        var chunk = Data(count: 64 * 1024)
        var status: Int32 = Z_OK
        var emitted = 0
        defer { stream.pointee.next_in = nil }
        try input.withUnsafeBytes { bytes in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(bytes.count)
            repeat {
                let made = chunk.withUnsafeMutableBytes { out in
                    stream.pointee.next_out = out.bindMemory(to: Bytef.self).baseAddress
                    stream.pointee.avail_out = uInt(out.count)
                    status = step == .deflate ? deflate(stream, flush) : inflate(stream, flush)
                    return out.count - Int(stream.pointee.avail_out)
                }
                if made > 0 { try emit(chunk.prefix(made)) }
                emitted += made
                if let limit, emitted > limit { break }
            } while status == Z_OK && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0 || flush == Z_FINISH)
        }
        return status
    }
}
