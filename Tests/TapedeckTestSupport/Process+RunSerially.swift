import Foundation

extension Process {
    /// Starts the process, one launch at a time across the test process: swift-corelibs-foundation's
    /// `Process.run()` can crash when several threads launch at once (seen in CI: a bad pointer
    /// dereference in its memcpy while the parallel tests started curl and servers together).
    public func runSerially() throws {
        try processLaunch.withLock { try run() }
    }
}

private let processLaunch = NSLock()
