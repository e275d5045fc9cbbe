import Foundation
import NIOCore

extension Data {
    /// A copy of a buffer's readable bytes.
    init(copying buffer: ByteBuffer) {
        self.init()
        append(copying: buffer)
    }

    /// Appends a copy of a buffer's readable bytes. Foundation's generic initializer and append
    /// would find the contiguous storage of a `ByteBufferView` through a dynamic cast, which costs
    /// more than the copy of a small body.
    mutating func append(copying buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { append($0.assumingMemoryBound(to: UInt8.self)) }
    }
}
