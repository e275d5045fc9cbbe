import Foundation

/// Name and value pairs of a query string or an `application/x-www-form-urlencoded` body.
package enum FormURLEncoding {
    /// One decoded name and value.
    package struct Pair: Sendable, Hashable, Comparable {
        package var name: String
        package var value: String

        package static func < (lhs: Pair, rhs: Pair) -> Bool {
            (lhs.name, lhs.value) < (rhs.name, rhs.value)
        }
    }

    /// Splits and decodes `a=1&b=2&a=3`: `+` is a space, percent escapes are decoded, order kept.
    package static func pairs(_ text: Substring) -> [Pair] {
        var pairs: [Pair] = []
        for item in text.utf8.split(separator: UInt8(ascii: "&")) {
            if let equals = item.firstIndex(of: UInt8(ascii: "=")) {
                let value = item[item.index(after: equals)...]
                pairs.append(Pair(name: decode(Substring(item[..<equals])), value: decode(Substring(value))))
            } else {
                pairs.append(Pair(name: decode(Substring(item)), value: ""))
            }
        }
        return pairs
    }

    /// Rewrites the values of chosen names in place, keeping everything else byte for byte.
    static func rewritingValues(_ text: Substring, of names: Set<String>, to replacement: String) -> (String, changed: Bool) {
        var changed = false
        let items = text.split(separator: "&", omittingEmptySubsequences: false).map { item -> Substring in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, names.contains(decode(parts[0]).lowercased()), decode(parts[1]) != replacement else { return item }
            changed = true
            return parts[0] + "=" + replacement
        }
        return (items.joined(separator: "&"), changed)
    }

    /// Decodes one component.
    package static func decode(_ component: Substring) -> String {
        guard component.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(component)
        }
        let spaced = component.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Percent-decodes only unreserved characters (RFC 3986 section 2.3), which never change a path's meaning.
    static func normalizePath(_ path: String) -> String {
        guard path.utf8.contains(UInt8(ascii: "%")) else { return path }
        var out = ""
        var index = path.startIndex
        while index < path.endIndex {
            let character = path[index]
            if character == "%", let end = path.index(index, offsetBy: 3, limitedBy: path.endIndex),
               let byte = UInt8(path[path.index(after: index)..<end], radix: 16) {
                let scalar = Unicode.Scalar(byte)
                if byte < 0x80, CharacterSet.urlUnreserved.contains(scalar) {
                    out.unicodeScalars.append(scalar)
                } else {
                    out += "%" + String(format: "%02X", byte)
                }
                index = end
            } else {
                out.append(character)
                index = path.index(after: index)
            }
        }
        return out
    }
}

extension CharacterSet {
    /// RFC 3986 unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    static let urlUnreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
