import TapedeckCore

/// A request the cassette cannot answer; its description is the same diagnosis as the
/// replay server's 599 body: the request, the rules, and the nearest recorded requests.
public struct UnmatchedRequestError: Error, CustomStringConvertible, Sendable {
    /// The diagnosis.
    public let diagnosis: MatchDiagnosis

    public var description: String { diagnosis.description }
}
