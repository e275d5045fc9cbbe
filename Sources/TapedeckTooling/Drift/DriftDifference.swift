import TapedeckCore

/// One way a live answer differs from its recording.
package struct DriftDifference: Sendable, Hashable, CustomStringConvertible {
    /// What changed.
    package enum Kind: String, Sendable, Hashable {
        /// The status code.
        case status
        /// The media type of `Content-Type`.
        case contentType
        /// A JSON place the recording lacks: an addition, which a client built on the recording survives.
        case added
        /// A JSON place the live answer lacks.
        case removed
        /// A JSON place whose type changed (number -> string).
        case typeChanged
        /// A JSON value, or a non-JSON body, that changed (reported with `values` only).
        case valueChanged
        /// The request could not be sent, or the service did not answer.
        case unreachable
    }

    /// The interaction's position in its cassette.
    package let interaction: Int
    /// What changed.
    package let kind: Kind
    /// Where: `status`, `Content-Type`, `body`, or a JSON path such as `$.user.age`.
    package let place: String
    /// Recorded, then live, in a few words: `number -> string`.
    package let change: String

    /// Whether a client written against the recording may break: everything but an addition.
    package var isBreaking: Bool { kind != .added }

    /// `interactions[3] $.user.age: number -> string`.
    package var description: String { "interactions[\(interaction)] \(place): \(change)" }
}
