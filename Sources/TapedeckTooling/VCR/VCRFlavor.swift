/// Which tool wrote a VCR-style YAML cassette; their layouts differ.
package enum VCRFlavor: String, Sendable, Hashable {
    /// Ruby VCR: `http_interactions`, `body: {encoding, string | base64_string}`, `recorded_at`.
    case rubyVCR = "Ruby VCR"
    /// vcrpy: `interactions`, request `uri` and a plain `body`, response `body: {string}` and
    /// `status: {code}`, `!!binary` for bytes; or its older httpx layout (`content`, `status_code`, `http_version`).
    case vcrpy
    /// go-vcr: `version` 1 (go-vcr v1, v2) or 2 (go-vcr v3, v4), `interactions`, request `url`,
    /// `body` a string, response `code` and `duration`.
    case goVCR = "go-vcr"

    /// The layouts known, in words, for the error about a file in none of them.
    static let knownLayouts = "Ruby VCR (http_interactions), vcrpy (interactions whose request has uri; "
        + "YAML or JSON), go-vcr format version 1 or 2 (interactions whose request has url)"
}
