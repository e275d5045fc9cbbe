extension AdminEndpoints {
    /// Every admin endpoint under ``prefix``, in the order help text lists them: the inspector's page
    /// (`ui`) and data (`exchanges`, `cassettes`, `events`), health, journal, unmatched, reset, the
    /// run-time stubs and verification of ``StubEndpoints``, the CA certificate and the API's own
    /// OpenAPI document. `replay --help` and the 404 answer to an unknown admin path both list these;
    /// a test checks that each one answers.
    package static let names = [
        "ui", "health", "journal", "unmatched", "exchanges", "cassettes", "events", "reset", "stubs", "verify", "ca.pem", "openapi.json",
    ]

    /// ``names`` as a sentence ends them: `ui, health, …, ca.pem or openapi.json`.
    package static var namesInProse: String {
        names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }
}
