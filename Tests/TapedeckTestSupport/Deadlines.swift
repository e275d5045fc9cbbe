import Foundation

/// Wall-clock bounds in the tests, which only bound a failure: a test that passes never waits
/// for them.
public enum Deadlines {
    /// How many times longer a bound may be: 3 under a sanitizer (`TAPEDECK_SANITIZER`, set by
    /// scripts/sanitizers.sh), which slows everything several times and starts every suite at once.
    public static let scale = ProcessInfo.processInfo.environment["TAPEDECK_SANITIZER"] == nil ? 1 : 3
}
