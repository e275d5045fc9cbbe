import Foundation

/// The benchmark package's door (`Benchmarks/`, a package of its own, so it cannot see this
/// package's `package` declarations) to two internals it times: hashing and piecewise JSON
/// redaction of a large body. Nothing here is part of the API.
@_spi(Benchmarks) public enum BenchmarkProbes {
    /// The SHA-256 of the pieces taken in order, as lowercase hex: what names a side file.
    public static func sha256(of pieces: [Data]) -> String {
        var hash = SHA256()
        for piece in pieces { hash.update(piece) }
        return hash.finalize().hexadecimal
    }

    /// Redacts a JSON document given in pieces under the default rules, as a large recorded body is;
    /// returns how many bytes came out. Throws when the bytes are not JSON.
    public static func redactJSON(_ pieces: [Data]) throws -> Int {
        guard var redaction = Redactor().streamingRedaction(contentType: "application/json") else { return 0 }
        var count = 0
        for piece in pieces { count += try redaction.update(piece).count }
        return count + (try redaction.finish()).count
    }
}
