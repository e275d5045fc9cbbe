import Foundation

extension Process {
    /// Starts the process, one launch at a time across the test process. This does not prevent the
    /// crash it was added for: swift-corelibs-foundation's `Process.run()` on Linux over-reads
    /// `/proc/self/fd` entries (`findMaximumOpenFromProcSelfFD`, fixed upstream by
    /// swift-corelibs-foundation pull request 5472, not in Swift 6.3.1) and now and then crashes
    /// the test process whatever the other threads do; `.ci/run` runs the tests once more when
    /// that crash, and nothing else, ended them.
    public func runSerially() throws {
        try processLaunch.withLock { try run() }
    }
}

private let processLaunch = NSLock()
