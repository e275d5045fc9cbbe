extension Sequence<UInt8> {
    /// The bytes as lowercase hexadecimal digits, two a byte.
    package var hexadecimal: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xf)]] }, as: UTF8.self)
    }
}
