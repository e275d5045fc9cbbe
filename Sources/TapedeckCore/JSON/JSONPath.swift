import Foundation

/// A JSONPath subset that names places in a JSON body: `$.meta.requestId`, `$..nonce`,
/// `$.items[*].id`, `$.items[0]`, `$['odd key']`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Segment: Sendable, Hashable {
        /// An object member.
        case key(String)
        /// An array element.
        case index(Int)
        /// Every member or element.
        case wildcard
        /// A member with this name at any depth below (`..name`).
        case descendant(String)
    }

    /// The steps after `$`.
    public let segments: [Segment]
    /// The path as written.
    public let description: String

    /// Parses a path; `$` alone names the whole body.
    public init(_ text: String) throws(JSONPathError) {
        description = text
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.first == "$" else { throw JSONPathError(path: text, message: "a path starts with $") }
        rest = rest.dropFirst()
        var segments: [Segment] = []
        while let first = rest.first {
            if rest.hasPrefix("..") {
                rest = rest.dropFirst(2)
                let name = rest.prefix { $0 != "." && $0 != "[" }
                guard !name.isEmpty, name != "*" else { throw JSONPathError(path: text, message: "`..` needs a member name") }
                segments.append(.descendant(String(name)))
                rest = rest.dropFirst(name.count)
            } else if first == "." {
                rest = rest.dropFirst()
                let name = rest.prefix { $0 != "." && $0 != "[" }
                guard !name.isEmpty else { throw JSONPathError(path: text, message: "empty member name") }
                segments.append(name == "*" ? .wildcard : .key(String(name)))
                rest = rest.dropFirst(name.count)
            } else if first == "[" {
                guard let close = rest.firstIndex(of: "]") else { throw JSONPathError(path: text, message: "missing ]") }
                let inside = rest[rest.index(after: rest.startIndex)..<close].trimmingCharacters(in: .whitespaces)
                rest = rest[rest.index(after: close)...]
                if inside == "*" {
                    segments.append(.wildcard)
                } else if let index = Int(inside), index >= 0 {
                    segments.append(.index(index))
                } else if inside.count >= 2, let quote = inside.first, quote == "'" || quote == "\"", inside.last == quote {
                    segments.append(.key(String(inside.dropFirst().dropLast())))
                } else {
                    throw JSONPathError(path: text, message: "[\(inside)] is not an index, * or a quoted name")
                }
            } else {
                throw JSONPathError(path: text, message: "unexpected \"\(first)\"")
            }
        }
        self.segments = segments
    }

    /// Creates a path from segments, writing it in the usual notation.
    public init(segments: [Segment]) {
        self.segments = segments
        description = "$" + segments.map { segment in
            switch segment {
            case .key(let name) where name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }): return ".\(name)"
            case .key(let name): return "['\(name)']"
            case .index(let index): return "[\(index)]"
            case .wildcard: return "[*]"
            case .descendant(let name): return "..\(name)"
            }
        }.joined()
    }

    /// The value with every place this path names rewritten: `transform` returns the new value,
    /// or nil to remove the member or element.
    public func rewriting(_ value: JSONValue, _ transform: (JSONValue) -> JSONValue?) -> JSONValue {
        Self.rewrite(value, segments[...], transform) ?? .null
    }

    /// The concrete paths (no wildcards) of every place in `value` this path names.
    public func places(in value: JSONValue) -> [JSONPath] {
        var found: [[Segment]] = []
        Self.collect(value, segments[...], prefix: [], into: &found)
        return found.map { JSONPath(segments: $0) }
    }

    private static func rewrite(_ value: JSONValue, _ segments: ArraySlice<Segment>,
                                _ transform: (JSONValue) -> JSONValue?) -> JSONValue? {
        guard let segment = segments.first else { return transform(value) }
        let rest = segments.dropFirst()
        switch (segment, value) {
        case let (.key(name), .object(object)):
            guard let member = object[name] else { return value }
            var copy = object
            copy[name] = rewrite(member, rest, transform)
            return .object(copy)
        case let (.index(index), .array(array)):
            guard array.indices.contains(index) else { return value }
            var copy = array
            if let element = rewrite(array[index], rest, transform) { copy[index] = element } else { copy.remove(at: index) }
            return .array(copy)
        case let (.wildcard, .object(object)):
            return .object(object.compactMapValues { rewrite($0, rest, transform) })
        case let (.wildcard, .array(array)):
            return .array(array.compactMap { rewrite($0, rest, transform) })
        case let (.descendant(name), .object(object)):
            var copy: [String: JSONValue] = [:]
            for (key, member) in object {
                let below = rewrite(member, segments, transform)
                copy[key] = key == name ? below.flatMap { rewrite($0, rest, transform) } : below
            }
            return .object(copy)
        case let (.descendant, .array(array)):
            return .array(array.compactMap { rewrite($0, segments, transform) })
        default:
            return value
        }
    }

    private static func collect(_ value: JSONValue, _ segments: ArraySlice<Segment>, prefix: [Segment],
                                into found: inout [[Segment]]) {
        guard let segment = segments.first else {
            found.append(prefix)
            return
        }
        let rest = segments.dropFirst()
        switch (segment, value) {
        case let (.key(name), .object(object)):
            if let member = object[name] { collect(member, rest, prefix: prefix + [.key(name)], into: &found) }
        case let (.index(index), .array(array)):
            if array.indices.contains(index) { collect(array[index], rest, prefix: prefix + [.index(index)], into: &found) }
        case let (.wildcard, .object(object)):
            for key in object.keys.sorted() { collect(object[key]!, rest, prefix: prefix + [.key(key)], into: &found) }
        case let (.wildcard, .array(array)):
            for (index, element) in array.enumerated() { collect(element, rest, prefix: prefix + [.index(index)], into: &found) }
        case let (.descendant(name), .object(object)):
            for key in object.keys.sorted() {
                let member = object[key]!
                if key == name { collect(member, rest, prefix: prefix + [.key(key)], into: &found) }
                collect(member, segments, prefix: prefix + [.key(key)], into: &found)
            }
        case let (.descendant, .array(array)):
            for (index, element) in array.enumerated() { collect(element, segments, prefix: prefix + [.index(index)], into: &found) }
        default:
            break
        }
    }
}

/// A JSONPath that cannot be parsed.
public struct JSONPathError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The path as given.
    public let path: String
    /// What is wrong with it.
    public let message: String

    public var description: String { "invalid JSON path \"\(path)\": \(message)" }
}

extension JSONPath {
    /// The values at every place in `value` this path names, in document order.
    public func values(in value: JSONValue) -> [JSONValue] {
        places(in: value).compactMap { place in
            place.segments.reduce(Optional(value)) { current, segment in
                switch (segment, current) {
                case let (.key(name), .object(members)?): return members[name]
                case let (.index(index), .array(items)?): return items.indices.contains(index) ? items[index] : nil
                default: return nil
                }
            }
        }
    }
}
