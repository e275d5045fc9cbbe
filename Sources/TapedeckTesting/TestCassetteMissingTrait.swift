/// `TestCassette.connector()` was called outside a test with a `.cassette(...)` trait.
public struct TestCassetteMissingTrait: Error, CustomStringConvertible, Sendable {
    /// The error, for the helpers of the other products (`TapedeckGRPCTesting`).
    package init() {}

    public var description: String {
        "no cassette for this test: add the .cassette(\"name\") trait to the @Test (or use TestCassette.current in its task)"
    }
}
