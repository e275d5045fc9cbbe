/// Whether a bind address keeps the server on this machine (loopback) or exposes it.
package enum BindAddress {
    /// True for `localhost`, `127.0.0.0/8` and `::1`.
    package static func isLoopback(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower == "::1" || lower == "[::1]" { return true }
        let parts = lower.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
