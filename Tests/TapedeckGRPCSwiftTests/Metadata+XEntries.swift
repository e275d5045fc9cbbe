import GRPCCore

extension Metadata {
    /// The `x-` entries, sorted, as `name=value,...`: what the tests compare of a call's metadata.
    var xEntries: String {
        filter { $0.key.hasPrefix("x-") }.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",")
    }
}
