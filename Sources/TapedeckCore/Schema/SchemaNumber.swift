/// A JSON number as a schema compares it: 64-bit integers stay exact, so `9007199254740993` is not
/// rounded to a neighbouring double when checked against a bound.
enum SchemaNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    case integer(Int64)
    case double(Double)

    /// The number in a JSON value; nil for anything else (and for NaN or infinity).
    init?(_ value: JSONValue) {
        switch value {
        case .integer(let integer): self = .integer(integer)
        case .double(let double) where double.isFinite: self = .double(double)
        default: return nil
        }
    }

    var doubleValue: Double {
        switch self {
        case .integer(let integer): return Double(integer)
        case .double(let double): return double
        }
    }

    /// Whether the number has no fractional part (`2` and `2.0`, not `2.5`).
    var isIntegral: Bool {
        switch self {
        case .integer: return true
        case .double(let double): return double.rounded(.towardZero) == double
        }
    }

    /// The number as JSON: integral values within 64 bits are written without a fraction.
    var jsonValue: JSONValue {
        switch self {
        case .integer(let integer): return .integer(integer)
        case .double(let double):
            if let integer = Int64(exactly: double) { return .integer(integer) }
            return .double(double)
        }
    }

    var description: String {
        String(decoding: jsonValue.compactData, as: UTF8.self)
    }

    static func < (lhs: SchemaNumber, rhs: SchemaNumber) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): return a < b
        case let (.double(a), .double(b)): return a < b
        case let (.integer(a), .double(b)): return compare(a, b) < 0
        case let (.double(a), .integer(b)): return compare(b, a) > 0
        }
    }

    static func == (lhs: SchemaNumber, rhs: SchemaNumber) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.integer(a), .double(b)), let (.double(b), .integer(a)): return compare(a, b) == 0
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(doubleValue)
    }

    /// Whether this number is an integer multiple of `divisor` (which is positive).
    func isMultiple(of divisor: SchemaNumber) -> Bool {
        if case .integer(let value) = self, case .integer(let step) = divisor {
            return value.remainderReportingOverflow(dividingBy: step).partialValue == 0
        }
        let quotient = doubleValue / divisor.doubleValue
        if quotient.isFinite { return quotient.rounded(.towardZero) == quotient }
        // The quotient overflowed (a huge value, a tiny step): fall back to the remainder.
        return doubleValue.truncatingRemainder(dividingBy: divisor.doubleValue) == 0
    }

    /// -1, 0 or 1 as the integer is below, equal to or above the double, exactly.
    private static func compare(_ integer: Int64, _ double: Double) -> Int {
        if double >= 9_223_372_036_854_775_808.0 { return -1 } // 2^63: above every Int64
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = double.rounded(.down)
        let whole = Int64(floor)
        if integer < whole { return -1 }
        if integer > whole { return 1 }
        return double > floor ? -1 : 0
    }
}
