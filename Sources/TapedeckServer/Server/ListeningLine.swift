import Foundation

/// The one line a server prints when ready: `tapedeck listening on http://HOST:PORT`.
package enum ListeningLine {
    /// Writes the line to standard output at once, unbuffered.
    package static func announce(_ server: TapedeckServer) {
        FileHandle.standardOutput.write(Data("tapedeck listening on \(server.url)\n".utf8))
    }
}
