import Foundation

/// A cassette: recorded interactions in order, and where they came from.
public struct Cassette: Sendable, Hashable {
    /// The only format version this release reads and writes.
    public static let formatVersion = 1

    /// Who wrote the cassette and when.
    public var meta: CassetteMeta
    /// The interactions, in recorded order.
    public var interactions: [Interaction]

    /// Creates a cassette.
    public init(meta: CassetteMeta = CassetteMeta(), interactions: [Interaction] = []) {
        self.meta = meta
        self.interactions = interactions
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
