import Foundation

/// A value guarded by a POSIX mutex (`NSLock`).
///
/// Used in place of `Synchronization.Mutex`, whose futex-based lock ThreadSanitizer does not
/// see on Linux, so that `scripts/sanitizers.sh thread` reports only real races. `withLock` is
/// inlinable so that the body is compiled for its value type where it is used (see ``BoundedLog``).
@_spi(Internals) public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline var value: Value
    @usableFromInline let lock = NSLock()

    /// Guards a value.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
