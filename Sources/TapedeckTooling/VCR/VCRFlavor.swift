/// Which tool wrote a VCR-style YAML cassette; their layouts differ.
public enum VCRFlavor: String, Sendable, Hashable {
    /// Ruby VCR: `http_interactions`, `body: {encoding, string | base64_string}`, `recorded_at`.
    case rubyVCR = "Ruby VCR"
    /// vcrpy: `interactions`, request `body` a plain value, response `body: {string}`, `!!binary` for bytes.
    case vcrpy
}
