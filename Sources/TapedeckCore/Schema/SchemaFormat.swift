/// The `format` values a schema checks; any other format is an annotation and accepts everything.
///
/// String formats accept values of other types, and the integer formats accept non-numbers, as in
/// JSON Schema: `format` says what a value of the right type looks like, `type` says which type.
enum SchemaFormat: String, Sendable, CaseIterable {
    /// RFC 3339 `date-time`: `2026-11-21T10:00:00Z`, `2026-11-21T10:00:00.5+01:00`.
    case dateTime = "date-time"
    /// RFC 3339 `full-date`: `2026-11-21`.
    case date
    /// RFC 3339 `full-time`, offset required: `10:00:00Z`.
    case time
    /// An address with one `@`, something on each side and no spaces.
    case email
    /// `8-4-4-4-12` hexadecimal digits.
    case uuid
    /// An absolute URI (RFC 3986): a scheme, `:`, then only characters a URI may hold.
    case uri
    /// Dotted decimal, four numbers 0 to 255 without leading zeros.
    case ipv4
    /// RFC 4291 text form, `::` and a trailing IPv4 part allowed, no zone.
    case ipv6
    /// OpenAPI `int32`: a whole number from -2^31 to 2^31-1.
    case int32
    /// OpenAPI `int64`: a whole number from -2^63 to 2^63-1.
    case int64

    /// Whether `value` has this format (values of types the format does not describe pass).
    func accepts(_ value: JSONValue) -> Bool {
        switch self {
        case .int32, .int64:
            guard let number = SchemaNumber(value) else {
                // Infinity is a number, and a whole number of no width.
                if case .double = value { return false }
                return true
            }
            guard number.isIntegral else { return false }
            let range: ClosedRange<SchemaNumber> = self == .int32
                ? .integer(Int64(Int32.min)) ... .integer(Int64(Int32.max)) : .integer(.min) ... .integer(.max)
            return range.contains(number)
        default:
            guard case .string(let text) = value else { return true }
            return accepts(text)
        }
    }

    private func accepts(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        switch self {
        case .dateTime:
            guard scalars.count > 11, scalars[10] == "T" || scalars[10] == "t" else { return false }
            return Self.isDate(scalars[0..<10]) && Self.isTime(scalars[11...])
        case .date: return Self.isDate(scalars[...])
        case .time: return Self.isTime(scalars[...])
        case .email:
            guard let at = scalars.firstIndex(of: "@"), at > 0, at < scalars.count - 1 else { return false }
            return !scalars[(at + 1)...].contains("@") && !scalars.contains { $0.properties.isWhitespace || $0.value < 0x20 }
        case .uuid:
            guard scalars.count == 36 else { return false }
            return scalars.indices.allSatisfy { [8, 13, 18, 23].contains($0) ? scalars[$0] == "-" : scalars[$0].isHexDigit }
        case .uri: return Self.isAbsoluteURI(scalars)
        case .ipv4: return Self.isIPv4(scalars[...])
        case .ipv6: return Self.isIPv6(scalars[...])
        case .int32, .int64: return true
        }
    }

    /// `YYYY-MM-DD`, a real day of a year from 1 to 9999.
    private static func isDate(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
        let text = Array(text)
        guard text.count == 10, text[4] == "-", text[7] == "-",
              let year = number(text[0..<4]), let month = number(text[5..<7]), let day = number(text[8..<10]),
              year >= 1, (1...12).contains(month), day >= 1 else { return false }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }

    /// `HH:MM:SS[.frac](Z|±HH:MM)`; a leap second (`:60`) is allowed, as RFC 3339 allows it.
    private static func isTime(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
        let text = Array(text)
        guard text.count >= 9, text[2] == ":", text[5] == ":",
              let hour = number(text[0..<2]), let minute = number(text[3..<5]), let second = number(text[6..<8]),
              hour <= 23, minute <= 59, second <= 60 else { return false }
        var rest = text[8...]
        if rest.first == "." {
            let digits = rest.dropFirst().prefix { $0.isDecimalDigit }
            guard !digits.isEmpty else { return false }
            rest = rest.dropFirst(1 + digits.count)
        }
        if rest.count == 1, let zone = rest.first { return zone == "Z" || zone == "z" }
        let offset = Array(rest)
        guard offset.count == 6, offset[0] == "+" || offset[0] == "-", offset[3] == ":",
              let hours = number(offset[1..<3]), let minutes = number(offset[4..<6]) else { return false }
        return hours <= 23 && minutes <= 59
    }

    /// The value of a run of ASCII digits, or nil when there is anything else.
    private static func number(_ digits: ArraySlice<Unicode.Scalar>) -> Int? {
        guard !digits.isEmpty, digits.allSatisfy(\.isDecimalDigit) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1.value - 48) }
    }

    private static func isIPv4(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            guard part.count <= 3, let value = number(part) else { return false }
            return value <= 255 && (part.count == 1 || part.first != "0")
        }
    }

    private static func isIPv6(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
        let text = Array(text)
        // `::` stands for one or more zero groups and appears at most once.
        if let gap = text.indices.dropLast().first(where: { text[$0] == ":" && text[$0 + 1] == ":" }) {
            let before = text[..<gap], after = text[(gap + 2)...]
            guard let leading = groupCount(before, mayEndInIPv4: false),
                  let trailing = groupCount(after, mayEndInIPv4: true) else { return false }
            return leading + trailing <= 7
        }
        return groupCount(text[...], mayEndInIPv4: true) == 8
    }

    /// How many 16-bit groups `a:b:c` (or nothing) holds, a final dotted IPv4 part counting two;
    /// nil when a part is malformed.
    private static func groupCount(_ text: ArraySlice<Unicode.Scalar>, mayEndInIPv4: Bool) -> Int? {
        guard !text.isEmpty else { return 0 }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var count = 0
        for (index, part) in parts.enumerated() {
            if mayEndInIPv4 && index == parts.count - 1 && part.contains(".") {
                guard isIPv4(part) else { return nil }
                count += 2
            } else {
                guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit) else { return nil }
                count += 1
            }
        }
        return count
    }

    /// RFC 3986 `absolute-URI`-ish: a scheme, then characters from the URI alphabet (percent escapes well formed).
    private static func isAbsoluteURI(_ text: [Unicode.Scalar]) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon > 0, text[0].isASCIILetter,
              text[1..<colon].allSatisfy({ $0.isASCIILetter || $0.isDecimalDigit || "+-.".unicodeScalars.contains($0) })
        else { return false }
        let allowed = Set("-._~:/?#[]@!$&'()*+,;=".unicodeScalars)
        var index = colon + 1
        while index < text.count {
            let scalar = text[index]
            if scalar == "%" {
                guard index + 2 < text.count, text[index + 1].isHexDigit, text[index + 2].isHexDigit else { return false }
                index += 3
                continue
            }
            guard scalar.isASCIILetter || scalar.isDecimalDigit || allowed.contains(scalar) else { return false }
            index += 1
        }
        return true
    }
}

extension Unicode.Scalar {
    /// `0`-`9`.
    fileprivate var isDecimalDigit: Bool { ("0"..."9").contains(self) }
    /// `0`-`9`, `a`-`f`, `A`-`F`.
    fileprivate var isHexDigit: Bool { isDecimalDigit || ("a"..."f").contains(self) || ("A"..."F").contains(self) }
    /// `a`-`z`, `A`-`Z`.
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
