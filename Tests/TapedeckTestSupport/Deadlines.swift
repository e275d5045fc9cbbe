import Foundation

/// Wall-clock bounds in the tests. Most only bound a failure, and a test that passes never waits
/// for them; the few that are waited out on purpose (a connection that must stay open that long)
/// take longer under a sanitizer too.
public enum Deadlines {
    /// How many times longer a bound may be: 3 under a sanitizer (`TAPEDECK_SANITIZER`, set by
    /// scripts/sanitizers.sh), which slows everything several times and starts every suite at once.
    public static let scale = ProcessInfo.processInfo.environment["TAPEDECK_SANITIZER"] == nil ? 1 : 3

    /// The seconds a client the tests start (curl, Python, Chromium) may take for one call: 10, scaled.
    public static let clientCall = 10 * scale

    /// The seconds a test server keeps an idle connection: 60, scaled. A connection between a
    /// test's requests waits for the test, which a sanitized run may not schedule for a minute.
    public static let serverIdle = 60 * scale
}
