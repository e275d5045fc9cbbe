import Foundation

/// A request's `Accept-Encoding` (RFC 9110 section 12.5.3): which content codings the client takes, with q-values.
package struct AcceptEncoding: Sendable, Hashable {
    /// One listed coding, lowercased (`x-gzip` read as `gzip`), and its weight from 0 to 1.
    package struct Entry: Sendable, Hashable {
        /// The coding, `identity`, or `*`.
        package var coding: String
        /// The q-value; 0 means "not acceptable".
        package var quality: Double
    }

    /// The listed codings in order; empty for an empty header (identity only).
    package let entries: [Entry]

    /// Parses a header value; elements that do not parse (a bad q-value) are left out.
    package init(_ header: String) {
        var entries: [Entry] = []
        for element in header.split(separator: ",") {
            let parts = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first?.lowercased(), !name.isEmpty else { continue }
            var quality = 1.0
            var valid = true
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
                if let value = Double(pair[1]), (0...1).contains(value) { quality = value } else { valid = false }
            }
            if valid { entries.append(Entry(coding: name == "x-gzip" ? "gzip" : name, quality: quality)) }
        }
        self.entries = entries
    }

    /// The weight the client gives a coding: its own entry, else `*`'s; nil when neither is listed.
    /// `identity` not listed and not refused by `*;q=0` is acceptable (a weight below any listed one).
    package func quality(of coding: String) -> Double? {
        let name = coding.lowercased() == "x-gzip" ? "gzip" : coding.lowercased()
        if let own = entries.first(where: { $0.coding == name }) { return own.quality }
        if let any = entries.first(where: { $0.coding == "*" }) { return any.quality }
        return name == "identity" ? Self.implicitIdentity : nil
    }

    /// The weight of an `identity` the header does not mention: acceptable, but after every listed coding.
    static let implicitIdentity = 0.0001
}
