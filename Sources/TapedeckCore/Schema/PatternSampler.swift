/// Makes strings that a simple regular expression matches, for samples of schemas with a `pattern`.
///
/// Understood: literal characters, `.`, classes (`[a-z0-9_]`, `[^,]`), `\d \w \s` and their
/// negations, escaped characters (`\.`, `\n`, `\u00e9`), groups (`(...)`, `(?:...)`,
/// `(?<name>...)`) with `|`, anchors `^ $`, word boundaries (ignored), and the quantifiers
/// `? * + {n} {n,} {n,m}` (lazy or possessive too). Anything else (back-references, look-arounds,
/// Unicode properties) makes ``init(_:)`` return nil, and the sample falls back to plain strings.
struct PatternSampler {
    /// The parsed expression.
    private indirect enum Piece {
        case literal(Unicode.Scalar)
        case anyOf(ScalarSet)
        case sequence([Piece])
        case alternatives([Piece])
        case repeated(Piece, minimum: Int, maximum: Int?)
        /// `^`, `$`, `\b`: match no character.
        case nothing
    }

    /// A character class: ranges of scalars, possibly negated.
    private struct ScalarSet {
        var ranges: [ClosedRange<Unicode.Scalar>]
        var negated = false

        static let digits = ScalarSet(ranges: ["0"..."9"])
        static let word = ScalarSet(ranges: ["a"..."z", "A"..."Z", "0"..."9", "_"..."_"])
        static let space = ScalarSet(ranges: [" "..." ", "\t"..."\t", "\n"..."\n", "\r"..."\r"])
        static let dot = ScalarSet(ranges: ["\n"..."\n", "\r"..."\r"], negated: true)

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            ranges.contains { $0.contains(scalar) } != negated
        }

        /// The characters a sample prefers, readable ones.
        private static let friendly = Array("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_-. ".unicodeScalars)

        /// A readable member: a letter, a digit or common punctuation when the class holds one.
        func pick(_ random: inout SampleRandom) -> Unicode.Scalar? {
            let friendly = Self.friendly
            let start = random.below(friendly.count)
            for offset in friendly.indices {
                let scalar = friendly[(start + offset) % friendly.count]
                if contains(scalar) { return scalar }
            }
            return negated ? nil : ranges.first?.lowerBound
        }
    }

    private let root: Piece
    /// Whether the expression starts with `^` and ends with `$`: then padding would break a match.
    let isAnchoredAtStart: Bool
    let isAnchoredAtEnd: Bool

    /// Parses `source`; nil when it uses something this sampler does not understand.
    init?(_ source: String) {
        var parser = Parser(scalars: Array(source.unicodeScalars))
        guard let root = parser.alternatives(), parser.index == parser.scalars.count else { return nil }
        self.root = root
        isAnchoredAtStart = source.hasPrefix("^")
        isAnchoredAtEnd = source.hasSuffix("$") && !source.hasSuffix("\\$")
    }

    /// A matching string; each open-ended or ranged quantifier repeats `extra` times more than its
    /// minimum (within its maximum). Nil when a class has no member to offer, or the string would be huge.
    func sample(_ random: inout SampleRandom, extra: Int) -> String? {
        var scalars = String.UnicodeScalarView()
        guard Self.emit(root, extra: extra, into: &scalars, random: &random) else { return nil }
        return String(scalars)
    }

    private static func emit(_ piece: Piece, extra: Int, into output: inout String.UnicodeScalarView,
                             random: inout SampleRandom) -> Bool {
        guard output.count < 10_000 else { return false }
        switch piece {
        case .literal(let scalar):
            output.append(scalar)
        case .anyOf(let set):
            guard let scalar = set.pick(&random) else { return false }
            output.append(scalar)
        case .sequence(let pieces):
            for piece in pieces where !emit(piece, extra: extra, into: &output, random: &random) { return false }
        case .alternatives(let choices):
            return emit(choices[random.below(choices.count)], extra: extra, into: &output, random: &random)
        case let .repeated(piece, minimum, maximum):
            let count = min(maximum ?? Int.max, minimum + extra)
            for _ in 0..<count where !emit(piece, extra: extra, into: &output, random: &random) { return false }
        case .nothing:
            break
        }
        return true
    }

    /// A recursive-descent reader of the supported syntax.
    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0
        var depth = 0

        private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        /// `a|b|c`, up to a `)` or the end.
        mutating func alternatives() -> Piece? {
            depth += 1
            defer { depth -= 1 }
            guard depth < 64 else { return nil }
            var choices: [Piece] = []
            while true {
                guard let branch = sequence() else { return nil }
                choices.append(branch)
                guard current == "|" else { break }
                index += 1
            }
            return choices.count == 1 ? choices[0] : .alternatives(choices)
        }

        private mutating func sequence() -> Piece? {
            var pieces: [Piece] = []
            while let scalar = current, scalar != "|", scalar != ")" {
                guard let atom = atom(), let quantified = quantified(atom) else { return nil }
                pieces.append(quantified)
            }
            return .sequence(pieces)
        }

        private mutating func atom() -> Piece? {
            guard let scalar = current else { return nil }
            index += 1
            switch scalar {
            case "^", "$": return .nothing
            case ".": return .anyOf(.dot)
            case "[": return characterClass()
            case "\\": return escape(inClass: false).map { $0 }
            case "(":
                if current == "?" {
                    index += 1
                    if current == ":" {
                        index += 1
                    } else if current == "<", let next = index + 1 < scalars.count ? scalars[index + 1] : nil, next != "=", next != "!" {
                        // A named group: skip the name.
                        while let name = current, name != ">" { index += 1 }
                        index += 1
                    } else {
                        return nil // look-arounds and flags
                    }
                }
                guard let inside = alternatives(), current == ")" else { return nil }
                index += 1
                return inside
            case "*", "+", "?", ")", "|": return nil
            default: return .literal(scalar)
            }
        }

        /// `\d`, `\.`, `\n`, `\u00e9`; inside a class, `\b` is a backspace.
        private mutating func escape(inClass: Bool) -> Piece? {
            guard let scalar = current else { return nil }
            index += 1
            switch scalar {
            case "d": return .anyOf(.digits)
            case "w": return .anyOf(.word)
            case "s": return .anyOf(.space)
            case "D": return .anyOf(ScalarSet(ranges: ScalarSet.digits.ranges, negated: true))
            case "W": return .anyOf(ScalarSet(ranges: ScalarSet.word.ranges, negated: true))
            case "S": return .anyOf(ScalarSet(ranges: ScalarSet.space.ranges, negated: true))
            case "n": return .literal("\n")
            case "t": return .literal("\t")
            case "r": return .literal("\r")
            case "b", "B": return inClass ? .literal("\u{8}") : .nothing
            case "u", "x":
                let width = scalar == "u" ? 4 : 2
                guard index + width <= scalars.count,
                      let code = UInt32(String(String.UnicodeScalarView(scalars[index..<index + width])), radix: 16),
                      let decoded = Unicode.Scalar(code) else { return nil }
                index += width
                return .literal(decoded)
            default:
                // Escaped punctuation stands for itself; other letters and digits are features not supported here.
                let isAlphanumeric = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                return isAlphanumeric ? nil : .literal(scalar)
            }
        }

        /// `[...]` after the `[`.
        private mutating func characterClass() -> Piece? {
            var set = ScalarSet(ranges: [])
            if current == "^" {
                set.negated = true
                index += 1
            }
            var first = true
            while let scalar = current, scalar != "]" || first {
                first = false
                index += 1
                var low = scalar
                if scalar == "\\" {
                    guard let escaped = escape(inClass: true) else { return nil }
                    switch escaped {
                    case .literal(let literal): low = literal
                    case .anyOf(let inner) where !inner.negated:
                        set.ranges += inner.ranges
                        continue
                    default: return nil
                    }
                }
                if current == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    index += 1
                    guard var high = current else { return nil }
                    index += 1
                    if high == "\\" {
                        guard case .literal(let literal)? = escape(inClass: true) else { return nil }
                        high = literal
                    }
                    guard low <= high else { return nil }
                    set.ranges.append(low...high)
                } else {
                    set.ranges.append(low...low)
                }
            }
            guard current == "]" else { return nil }
            index += 1
            return .anyOf(set)
        }

        /// The atom with the quantifier that follows it, if any.
        private mutating func quantified(_ atom: Piece) -> Piece? {
            let bounds: (Int, Int?)
            switch current {
            case "?": bounds = (0, 1); index += 1
            case "*": bounds = (0, nil); index += 1
            case "+": bounds = (1, nil); index += 1
            case "{":
                guard let braces = counts() else { return atom } // a literal "{", as ECMA reads it
                bounds = braces
            default:
                return atom
            }
            if current == "?" || current == "+" { index += 1 } // lazy or possessive: same strings
            if case .nothing = atom { return atom }
            return .repeated(atom, minimum: bounds.0, maximum: bounds.1)
        }

        /// `{n}`, `{n,}`, `{n,m}` at the current `{`; nil (nothing consumed) when it is not one.
        private mutating func counts() -> (Int, Int?)? {
            var cursor = index + 1
            func number() -> Int? {
                let start = cursor
                while cursor < scalars.count, ("0"..."9").contains(scalars[cursor]) { cursor += 1 }
                guard cursor > start, cursor - start < 6 else { return nil }
                return Int(String(String.UnicodeScalarView(scalars[start..<cursor])))
            }
            guard let minimum = number() else { return nil }
            var maximum: Int? = minimum
            if cursor < scalars.count, scalars[cursor] == "," {
                cursor += 1
                maximum = cursor < scalars.count && scalars[cursor] == "}" ? nil : number()
                if maximum == nil, cursor < scalars.count, scalars[cursor] != "}" { return nil }
            }
            guard cursor < scalars.count, scalars[cursor] == "}" else { return nil }
            if let maximum, maximum < minimum { return nil }
            index = cursor + 1
            return (minimum, maximum)
        }
    }
}
