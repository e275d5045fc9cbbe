import Foundation

/// A cassette: recorded interactions in order, and where they came from.
public struct Cassette: Sendable {
    /// The only format version this release reads and writes.
    public static let formatVersion = 1

    /// Who wrote the cassette and when.
    public var meta: CassetteMeta
    /// The interactions, in recorded order.
    public var interactions: [Interaction]
    /// Hand-written stubs, consulted when no interaction matches (SPEC section 10).
    public var stubs: [Stub] = []
    /// The stubs as the file wrote them, so that recording into the cassette keeps them as they were.
    var stubsJSON: [JSONValue] = []

    /// Creates a cassette.
    public init(meta: CassetteMeta = CassetteMeta(), interactions: [Interaction] = [], stubs: [Stub] = []) {
        self.meta = meta
        self.stubs = stubs
        self.interactions = interactions
    }
}

extension Cassette: Hashable {
    /// Cassettes are equal when their metadata, interactions and stubs as written are.
    public static func == (lhs: Cassette, rhs: Cassette) -> Bool {
        lhs.meta == rhs.meta && lhs.interactions == rhs.interactions && lhs.stubsJSON == rhs.stubsJSON
            && lhs.stubs.count == rhs.stubs.count
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(meta)
        hasher.combine(interactions)
        hasher.combine(stubsJSON)
    }
}

/// Who wrote a cassette and when.
public struct CassetteMeta: Sendable, Hashable, Codable {
    /// When the cassette was first written, ISO 8601 UTC.
    public var createdAt: String?
    /// The tool and version that wrote it.
    public var recordedWith: String?
    /// Interactions older than this many days (by `recordedAt`) are expired; see ``ExpiryOptions``.
    public var expireAfterDays: Double?

    /// Creates metadata.
    public init(createdAt: String? = nil, recordedWith: String? = nil, expireAfterDays: Double? = nil) {
        self.createdAt = createdAt
        self.recordedWith = recordedWith
        self.expireAfterDays = expireAfterDays
    }

    /// Metadata stamped with the current time and this release.
    public static func now(clock: () -> Date = Date.init) -> CassetteMeta {
        CassetteMeta(createdAt: Timestamp.iso8601(clock()), recordedWith: "tapedeck \(TapedeckRelease.version)")
    }
}

/// Facts about this release.
public enum TapedeckRelease {
    /// The release version, written into cassettes.
    public static let version = "0.1.0"
}
