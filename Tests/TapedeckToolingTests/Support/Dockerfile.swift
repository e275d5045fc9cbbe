import Foundation

/// A Dockerfile read into its stages, enough for tests to check its shape without a Docker engine:
/// instructions with their arguments, backslash continuations joined and comments left out.
struct Dockerfile {
    /// One instruction: `COPY --from=build /out/tapedeck /usr/local/bin/tapedeck` is
    /// `COPY` with those four arguments.
    struct Instruction {
        var keyword: String
        var arguments: [String]

        /// The arguments that are not `--flag` or `--flag=value`.
        var operands: [String] { arguments.filter { !$0.hasPrefix("--") } }

        /// The value of `--name=value`, if the instruction has that flag.
        func flag(_ name: String) -> String? {
            arguments.first { $0.hasPrefix("--\(name)=") }.map { String($0.dropFirst(name.count + 3)) }
        }
    }

    /// A stage: `FROM image AS name` and the instructions up to the next `FROM`.
    struct Stage {
        var image: String
        var name: String?
        var instructions: [Instruction] = []

        /// The instructions with this keyword, in order.
        func all(_ keyword: String) -> [Instruction] { instructions.filter { $0.keyword == keyword } }
    }

    /// The stages in order.
    var stages: [Stage] = []

    /// Reads a Dockerfile's text; instructions before the first `FROM` (only `ARG` is allowed there) are left out.
    init(_ text: String) {
        var logical: [String] = []
        var pending = ""
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if pending.isEmpty && (trimmed.isEmpty || trimmed.hasPrefix("#")) { continue }
            if trimmed.hasSuffix("\\") {
                pending += String(trimmed.dropLast()) + " "
            } else {
                logical.append(pending + trimmed)
                pending = ""
            }
        }
        for line in logical {
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard let keyword = words.first?.uppercased() else { continue }
            let instruction = Instruction(keyword: keyword, arguments: Array(words.dropFirst()))
            if keyword == "FROM" {
                let operands = instruction.operands
                let named = operands.count == 3 && operands[1].uppercased() == "AS"
                stages.append(Stage(image: operands.first ?? "", name: named ? operands[2] : nil))
            } else if !stages.isEmpty {
                stages[stages.count - 1].instructions.append(instruction)
            }
        }
    }
}
