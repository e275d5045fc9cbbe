import CSignalPipe
import Foundation
@_spi(Internals) import TapedeckCore

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// SIGINT and SIGTERM, watched from before a server listens until it exits, so a signal at any
/// moment (even right after the `listening` line) stops it cleanly.
///
/// ``install()`` puts in place a process-wide handler that writes each signal into a pipe (see
/// `CSignalPipe`); a thread of its own reads the pipe. The first signal resumes ``first()``, and
/// the server then drains and saves; a second one exits at once with status 1, keeping what is
/// already on disk (cassettes are replaced atomically, so nothing on disk is ever half written).
package final class TerminationSignal: Sendable {
    private let first: Locked<FirstSignal>

    private struct FirstSignal {
        var number: Int32?
        var waiter: CheckedContinuation<Int32, Never>?
    }

    private init() {
        first = Locked(FirstSignal())
    }

    /// Installs the handler; call it before the server starts listening.
    package static func install() throws -> TerminationSignal {
        let readEnd = tapedeck_signal_pipe_install()
        guard readEnd >= 0 else { throw TerminationSignalError(errno: errno) }
        let watch = TerminationSignal()
        let reader = Thread { watch.read(from: readEnd) }
        reader.name = "tapedeck.signals"
        reader.start()
        return watch
    }

    /// Suspends until the first SIGINT or SIGTERM (returning at once if one came already); returns its number.
    package func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let arrived = first.withLock { state -> Int32? in
                if state.number == nil { state.waiter = continuation }
                return state.number
            }
            if let arrived { continuation.resume(returning: arrived) }
        }
    }

    /// Reads signals from the pipe for the life of the process.
    private func read(from readEnd: Int32) {
        var seen = 0
        var byte: UInt8 = 0
        while true {
            let count = Foundation.read(readEnd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return }
            seen += 1
            if seen == 1 {
                let waiter = first.withLock { state -> CheckedContinuation<Int32, Never>? in
                    state.number = Int32(byte)
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume(returning: Int32(byte))
            } else {
                FileHandle.standardError.write(Data("tapedeck: second signal: stopping at once; what is on disk stays\n".utf8))
                exit(1)
            }
        }
    }
}

/// The signal handler could not be installed.
package struct TerminationSignalError: Error, CustomStringConvertible {
    /// The system's error number.
    package let errno: Int32

    package var description: String { "cannot watch SIGINT and SIGTERM: \(String(cString: strerror(errno)))" }
}
