/// A day of the proleptic Gregorian calendar, from a count of days since 1970-01-01.
///
/// Howard Hinnant's `civil_from_days`: the year is taken to start on 1 March, so the leap day
/// ends it, and days are counted in 400-year eras of 146,097 days.
struct CivilDate: Equatable {
    var year: Int
    var month: Int
    var day: Int
}

extension CivilDate {
    /// The day `daysSince1970` days after 1970-01-01 (before it, when negative).
    init(daysSince1970: Int64) {
        let shifted = daysSince1970 + 719_468 // days from 0000-03-01 to 1970-01-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097 // 0 ... 146,096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365 // 0 ... 399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100) // 0 ... 365, from 1 March
        let shiftedMonth = (5 * dayOfYear + 2) / 153 // 0 ... 11, March first
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    }
}
