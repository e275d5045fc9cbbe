import Foundation

/// Finds where JSON text stops being valid, as a line and column, for error messages.
enum JSONSyntaxLocator {
    /// The place of the first syntax error, or nil when the bytes are valid JSON.
    static func locate(in data: Data) -> CassetteError.Kind? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            let userInfo = (error as NSError).userInfo
            let message = userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            // Darwin's Foundation gives the offset in the error's userInfo; Linux's names it in the message.
            let offset = userInfo[darwinErrorIndexKey] as? Int ?? characterOffset(in: message) ?? data.count
            let (line, column) = lineAndColumn(of: min(offset, data.count), in: data)
            return .syntax(line: line, column: column, message: message)
        }
    }

    /// The userInfo key of the byte offset in Darwin's JSONSerialization errors.
    static let darwinErrorIndexKey = "NSJSONSerializationErrorIndex"

    /// The number after "character " in Foundation's message.
    private static func characterOffset(in message: String) -> Int? {
        guard let range = message.range(of: "character ") else { return nil }
        return Int(message[range.upperBound...].prefix { $0.isNumber })
    }

    /// 1-based line and column (in characters) of a byte offset.
    static func lineAndColumn(of offset: Int, in data: Data) -> (Int, Int) {
        var line = 1
        var lineStart = 0
        for (index, byte) in data.prefix(offset).enumerated() where byte == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        let column = String(decoding: data[data.startIndex + lineStart ..< data.startIndex + offset], as: UTF8.self).count + 1
        return (line, column)
    }
}
