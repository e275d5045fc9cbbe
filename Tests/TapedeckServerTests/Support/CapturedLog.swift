import Logging
@_spi(Internals) import TapedeckCore

/// A swift-log handler that keeps every message, for tests that check what a server logs.
struct CapturedLog: LogHandler {
    /// The messages logged so far, shared by every copy of the handler.
    final class Lines: Sendable {
        private let lines = Locked<[String]>([])

        var all: [String] { lines.withLock { $0 } }

        /// The messages that begin with `prefix`.
        func starting(with prefix: String) -> [String] {
            all.filter { $0.hasPrefix(prefix) }
        }

        func append(_ line: String) {
            lines.withLock { $0.append(line) }
        }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    /// A logger whose messages go to `lines`.
    static func logger(into lines: Lines) -> Logger {
        Logger(label: "tapedeck.test") { _ in CapturedLog(lines: lines) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append(event.message.description)
    }
}
