import Foundation

/// A shape of credential that should never sit in a cassette in clear, such as `AKIA…` or a private key.
package struct SecretPattern: Sendable {
    /// What the secret is, in words: "AWS access key ID".
    package let name: String
    /// The regular expression that finds it.
    package let pattern: String
    /// An extra check on a match that the expression cannot express, such as "decodes to user:password".
    package let confirm: @Sendable (String) -> Bool

    /// Creates a pattern.
    package init(name: String, pattern: String, confirm: @escaping @Sendable (String) -> Bool = { _ in true }) {
        self.name = name
        self.pattern = pattern
        self.confirm = confirm
    }

    /// The shapes lint looks for.
    package static let all: [SecretPattern] = [
        SecretPattern(name: "private key block",
                      pattern: #"-----BEGIN (?:(?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----"#),
        SecretPattern(name: "bearer token", pattern: #"(?i)\bbearer\s+[A-Za-z0-9\-._~+/]{8,}=*"#),
        SecretPattern(name: "basic credentials", pattern: #"(?i)\bbasic\s+[A-Za-z0-9+/]{4,}={0,2}"#) { match in
            guard let encoded = match.split(whereSeparator: \.isWhitespace).last,
                  let data = Data(base64Encoded: String(encoded)),
                  let decoded = String(data: data, encoding: .utf8) else { return false }
            return decoded.contains(":")
        },
        SecretPattern(name: "credentials in a URL", pattern: #"(?i)\bhttps?://[^/\s:@"]+:[^/\s@"]+@"#),
        SecretPattern(name: "Stripe secret key", pattern: #"\b[sr]k_(?:live|test)_[0-9A-Za-z]{10,}"#),
        SecretPattern(name: "AWS access key ID", pattern: #"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"#),
        SecretPattern(name: "GitHub token", pattern: #"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"#),
        SecretPattern(name: "Slack token", pattern: #"\bxox[abposr]-[A-Za-z0-9-]{10,}"#),
        SecretPattern(name: "Google API key", pattern: #"\bAIza[0-9A-Za-z_\-]{35}"#),
        SecretPattern(name: "OpenAI-style secret key", pattern: #"\bsk-(?:proj-)?[A-Za-z0-9_\-]{20,}"#),
        SecretPattern(name: "JSON Web Token", pattern: #"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"#),
    ]
}
