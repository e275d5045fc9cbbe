import Foundation

/// A value guarded by a POSIX mutex (`NSLock`).
///
/// Used in place of `Synchronization.Mutex`, whose futex-based lock ThreadSanitizer does not
/// see on Linux, so that `scripts/sanitizers.sh thread` reports only real races.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    /// Guards a value.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
