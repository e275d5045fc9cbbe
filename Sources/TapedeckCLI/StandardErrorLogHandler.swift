import Foundation
import Logging

/// Writes the servers' log lines to standard error as `tapedeck replay: message`, the label's
/// dots read as spaces, so they read like the command's own messages: a warning or an error says
/// so as ``Diagnostic`` does (`tapedeck record: error: cannot save: ...`).
struct StandardErrorLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    private let prefix: String

    init(label: String) {
        prefix = label.replacingOccurrences(of: ".", with: " ")
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let details = all.isEmpty ? "" : " (" + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + ")"
        let text = "\(event.message)\(details)"
        switch event.level {
        case .warning: FileHandleOutput.standardError(Diagnostic.line("warning", text, prefix: prefix))
        case .error, .critical: FileHandleOutput.standardError(Diagnostic.line("error", text, prefix: prefix))
        default: FileHandleOutput.standardError("\(prefix): \(text)")
        }
    }
}
