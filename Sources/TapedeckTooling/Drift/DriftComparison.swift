import Foundation
import TapedeckCore

/// Compares a recorded response with a live one structurally: the status, the media type, and
/// JSON bodies place by place. Headers other than `Content-Type` and the values of JSON leaves
/// change from call to call (dates, ids), so values are compared only when asked.
package struct DriftComparison: Sendable {
    /// Also report changed JSON values and changed non-JSON bodies.
    package var values: Bool

    /// Creates a comparison.
    package init(values: Bool = false) {
        self.values = values
    }

    /// The differences between the answers of interaction `index`.
    package func differences(recorded: CassetteResponse, recordedBody: Data, live: CassetteResponse, liveBody: Data,
                            index: Int) -> [DriftDifference] {
        var found: [DriftDifference] = []
        if recorded.status != live.status {
            found.append(DriftDifference(interaction: index, kind: .status, place: "status", change: "\(recorded.status) -> \(live.status)"))
        }
        let (recordedType, liveType) = (Self.mediaType(recorded.headers), Self.mediaType(live.headers))
        if recordedType != liveType {
            found.append(DriftDifference(interaction: index, kind: .contentType, place: "Content-Type",
                                         change: "\(recordedType ?? "none") -> \(liveType ?? "none")"))
        }
        if let old = JSONValue(parsing: recordedBody), let new = JSONValue(parsing: liveBody), Self.isJSON(recordedType) {
            compare(old, new, at: "$", index: index, into: &found)
        } else if values, recordedBody != liveBody {
            found.append(DriftDifference(interaction: index, kind: .valueChanged, place: "body",
                                         change: "\(recordedBody.count) bytes -> \(liveBody.count) bytes"))
        }
        return found
    }

    private func compare(_ old: JSONValue, _ new: JSONValue, at path: String, index: Int, into found: inout [DriftDifference]) {
        switch (old, new) {
        case let (.object(before), .object(after)):
            for key in Set(before.keys).union(after.keys).sorted() {
                let place = Self.member(key, of: path)
                switch (before[key], after[key]) {
                case let (was?, now?): compare(was, now, at: place, index: index, into: &found)
                case let (was?, nil):
                    found.append(DriftDifference(interaction: index, kind: .removed, place: place, change: "\(Self.typeName(was)) -> absent"))
                case let (nil, now?):
                    found.append(DriftDifference(interaction: index, kind: .added, place: place, change: "absent -> \(Self.typeName(now))"))
                case (nil, nil): break
                }
            }
        case let (.array(before), .array(after)):
            // Elements are compared in step; a longer or shorter list is a value change.
            for position in 0..<min(before.count, after.count) {
                compare(before[position], after[position], at: "\(path)[\(position)]", index: index, into: &found)
            }
            if values, before.count != after.count {
                found.append(DriftDifference(interaction: index, kind: .valueChanged, place: path,
                                             change: "\(before.count) elements -> \(after.count) elements"))
            }
        default:
            if Self.typeName(old) != Self.typeName(new) {
                found.append(DriftDifference(interaction: index, kind: .typeChanged, place: path,
                                             change: "\(Self.typeName(old)) -> \(Self.typeName(new))"))
            } else if values, old != new {
                found.append(DriftDifference(interaction: index, kind: .valueChanged, place: path,
                                             change: "\(old.summary) -> \(new.summary)"))
            }
        }
    }

    /// `$.name`, or `$['odd key']` for names that are not plain identifiers.
    private static func member(_ key: String, of path: String) -> String {
        let plain = !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !key.first!.isNumber
        return plain ? "\(path).\(key)" : "\(path)['\(key.replacingOccurrences(of: "'", with: "\\'"))']"
    }

    /// The JSON type in the words a reader expects.
    static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The media type without parameters, lowercased.
    static func mediaType(_ headers: HeaderList) -> String? {
        headers["Content-Type"].map { $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? "" }
    }

    private static func isJSON(_ mediaType: String?) -> Bool {
        guard let mediaType else { return true }
        return mediaType.hasSuffix("/json") || mediaType.hasSuffix("+json")
    }
}
