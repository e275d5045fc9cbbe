import Foundation

/// The one line a server prints when ready: `tapedeck listening on http://HOST:PORT`.
public enum ListeningLine {
    /// Writes the line to standard output at once, unbuffered.
    public static func announce(_ server: TapedeckServer) {
        FileHandle.standardOutput.write(Data("tapedeck listening on \(server.url)\n".utf8))
    }
}
