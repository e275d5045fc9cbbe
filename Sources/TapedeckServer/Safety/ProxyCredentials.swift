import Foundation

/// A user and password, checked against `Proxy-Authorization: Basic`.
package struct ProxyCredentials: Sendable, Hashable {
    /// The user name.
    package let user: String
    /// The password.
    package let password: String
    /// The value a client must send in `Proxy-Authorization`.
    private let expected: [UInt8]

    /// Creates credentials from a user and a password.
    package init(user: String, password: String) {
        self.user = user
        self.password = password
        expected = Array("Basic \(Data("\(user):\(password)".utf8).base64EncodedString())".utf8)
    }

    /// Parses `USER:PASSWORD`; the user must not be empty and the colon is required.
    package init(parsing text: String) throws(ProxyCredentialsError) {
        guard let colon = text.firstIndex(of: ":") else { throw ProxyCredentialsError(text: text, reason: "has no ':'") }
        let user = String(text[..<colon])
        guard !user.isEmpty else { throw ProxyCredentialsError(text: text, reason: "has an empty user") }
        self.init(user: user, password: String(text[text.index(after: colon)...]))
    }

    /// Whether a `Proxy-Authorization` value proves these credentials; compares in constant time.
    package func accepts(_ header: String?) -> Bool {
        guard let header else { return false }
        var given = Array(header.utf8)
        // The scheme is case-insensitive: normalise "basic " to "Basic ".
        if given.count >= 6, String(decoding: given[0..<6], as: UTF8.self).lowercased() == "basic " {
            given.replaceSubrange(0..<6, with: Array("Basic ".utf8))
        }
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in given.indices { difference |= given[index] ^ expected[index] }
        return difference == 0
    }
}

/// Proxy credentials were not `USER:PASSWORD`.
package struct ProxyCredentialsError: Error, CustomStringConvertible, Sendable {
    /// What was given (the password part is not echoed).
    package let text: String
    /// What is wrong with it.
    package let reason: String

    package var description: String { "proxy credentials must be USER:PASSWORD; the value given \(reason)" }
}
