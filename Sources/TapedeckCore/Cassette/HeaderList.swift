import Foundation

/// One header line: a name as it was sent and one value.
public struct HeaderField: Sendable, Hashable {
    /// The name exactly as recorded; compare with ``HeaderList/values(for:)``, which ignores case.
    public var name: String
    /// One value; repeated headers are several fields with the same name.
    public var value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An ordered list of header fields whose names compare case-insensitively.
///
/// Stored in a cassette as an object from the name to the list of its values, so
/// repeated headers such as `Set-Cookie` survive a round trip.
public struct HeaderList: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in order.
    public private(set) var fields: [HeaderField]

    /// Creates a list from fields in order.
    public init(_ fields: [HeaderField] = []) {
        self.fields = fields
    }

    /// Creates a list from name and value pairs in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { HeaderField(name: $0.0, value: $0.1) }
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[HeaderField]> { fields.makeIterator() }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// All values of a header, in order, whatever the case of its name.
    public func values(for name: String) -> [String] {
        fields.compactMap { $0.name.caseInsensitiveEquals(name) ? $0.value : nil }
    }

    /// The first value of a header, whatever the case of its name.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Whether a header is present, whatever the case of its name.
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) }
    }

    /// Makes room for `count` fields.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Appends one field.
    public mutating func append(name: String, value: String) {
        fields.append(HeaderField(name: name, value: value))
    }

    /// Replaces every value of a header by one value, keeping the first field's position.
    public mutating func set(name: String, value: String) {
        if let first = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
            fields[first].value = value
            var index = fields.index(after: first)
            while index < fields.endIndex {
                if fields[index].name.caseInsensitiveEquals(name) { fields.remove(at: index) } else { index += 1 }
            }
        } else {
            append(name: name, value: value)
        }
    }

    /// Removes every field with this name, whatever its case.
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Removes every field whose name matches the predicate.
    public mutating func removeAll(where shouldRemove: (HeaderField) -> Bool) {
        fields.removeAll(where: shouldRemove)
    }

    /// Rewrites values in place, keeping order.
    public mutating func mapValues(_ transform: (HeaderField) -> String) {
        for index in fields.indices { fields[index].value = transform(fields[index]) }
    }

    /// The list without its hop-by-hop fields (``hopByHop``), which a cassette never stores.
    public var removingHopByHop: HeaderList {
        var list = self
        list.removeHopByHop()
        return list
    }

    /// Removes its hop-by-hop fields (``hopByHop``), which a cassette never stores.
    public mutating func removeHopByHop() {
        let hopByHop = self.hopByHop
        guard fields.contains(where: { hopByHop.contains($0.name) }) else { return }
        fields.removeAll { hopByHop.contains($0.name) }
    }

    /// Whether a header's name alone makes it concern only one connection (RFC 9110 section
    /// 7.6.1); ``HopByHopFields`` adds the names a message's `Connection` field lists.
    public static func isHopByHop(_ name: String) -> Bool {
        // Asked of every header forwarded: most names start with none of the letters these do.
        guard let first = name.utf8.first, hopByHopInitials.contains(first | 0x20) else { return false }
        if Substring(name.utf8.prefix(6)).caseInsensitiveEquals("proxy-") { return true }
        return hopByHopNames.contains { $0.caseInsensitiveEquals(name) }
    }

    /// The first letters of the hop-by-hop names and of `proxy-`, lowercase.
    private static let hopByHopInitials = Array(Set((["proxy-"] + hopByHopNames).compactMap(\.utf8.first)))

    private static let hopByHopNames = [
        "connection", "keep-alive", "te", "trailer", "trailers", "transfer-encoding", "upgrade",
    ]
}

extension HeaderList {
    /// The first field whose name or value holds CR, LF or NUL: sent as it is, it would split the
    /// message (a forged header or body). Nothing that holds one is loaded, imported or served.
    public var firstUnsafeField: HeaderField? {
        fields.first { Self.isUnsafe($0.name) || Self.isUnsafe($0.value) }
    }

    /// Why a field is refused, naming it.
    public static func unsafeReason(_ field: HeaderField) -> String {
        "header \(field.name.debugDescription) has a CR, LF or NUL, which would split the message"
    }

    private static func isUnsafe(_ text: String) -> Bool {
        text.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}

extension HeaderList: Codable {
    /// Reads the cassette form: an object from a name to the list of its values.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let object = try container.decode([String: [String]].self)
        var fields: [HeaderField] = []
        fields.reserveCapacity(object.count)
        for name in object.keys.sorted() {
            for value in object[name] ?? [] { fields.append(HeaderField(name: name, value: value)) }
        }
        self.fields = fields
        if let unsafe = firstUnsafeField {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: HeaderList.unsafeReason(unsafe))
        }
    }

    /// Writes the cassette form, grouping the values of each name as recorded.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(grouped)
    }

    /// The values grouped by name as recorded, in order within each name.
    public var grouped: [String: [String]] {
        var object: [String: [String]] = [:]
        for field in fields { object[field.name, default: []].append(field.value) }
        return object
    }
}

extension StringProtocol {
    /// ASCII case-insensitive equality, as HTTP header names compare. Inlinable, so that the
    /// servers' calls are specialized for their string types rather than going through witnesses.
    @_spi(Internals) @inlinable
    public func caseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        let lhs = utf8, rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        // Native strings and their substrings are contiguous UTF-8: compare the bytes directly.
        let contiguous = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in
                zip(left, right).allSatisfy(Self.sameIgnoringASCIICase)
            }
        }
        return (contiguous ?? nil) ?? zip(lhs, rhs).allSatisfy(Self.sameIgnoringASCIICase)
    }

    @usableFromInline
    static func sameIgnoringASCIICase(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7a)
    }
}
