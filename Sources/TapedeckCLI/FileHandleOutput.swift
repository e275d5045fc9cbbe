import Foundation

/// Writes lines to the standard streams: every line the command line prints goes through here.
///
/// What it prints comes partly from files no one here wrote (a cassette's URLs, a HAR file's
/// entries, a stub's name), so a control character is written as its escape (`\u{1B}`), never as
/// itself: a terminal would obey it (an ESC starts a sequence that can rewrite the screen, or set
/// the clipboard). Line feeds and tabs stay.
enum FileHandleOutput {
    /// Writes a line to standard output.
    static func standardOutput(_ line: String) {
        FileHandle.standardOutput.write(Data(terminated(line).utf8))
    }

    /// Writes a line to standard error.
    static func standardError(_ line: String) {
        FileHandle.standardError.write(Data(terminated(line).utf8))
    }

    /// `line` ending with one line feed, its control characters escaped.
    static func terminated(_ line: String) -> String {
        let safe = escapingControlCharacters(line)
        return safe.hasSuffix("\n") ? safe : safe + "\n"
    }

    /// `text` with each control character but line feed and tab (C0, DEL and C1) as `\u{XX}`.
    static func escapingControlCharacters(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
