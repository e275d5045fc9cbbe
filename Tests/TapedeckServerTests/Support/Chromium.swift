import Foundation
import TapedeckTestSupport

/// Headless Chromium (Debian's `chromium` package), for the tests that look at a page as a
/// browser renders it. Each run gets a fresh profile in a temporary folder, removed afterwards.
enum Chromium {
    /// The browser on the PATH, if installed.
    static let path = Tool.path(of: "chromium", "chromium-browser")

    /// Why the browser tests are skipped, when they are.
    static let missing = "chromium is not installed (apt-get install -y chromium); the browser test is skipped"

    /// The flags every run uses: headless, no sandbox (tests run as root in CI), nothing fetched
    /// from the network besides the page. Chromium still fetches a few things of its own (sign-in,
    /// updates, the time), so no name resolves but `localhost`: those fail inside the browser. A
    /// test that maps a made-up name to 127.0.0.1 gives its own rules, ending with the same catch-all.
    static let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--no-first-run", "--host-resolver-rules=\(onlyLoopback)"]

    /// The resolver rule that keeps the browser on this machine.
    static let onlyLoopback = "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"

    /// The flags that send the browser through a proxy, 127.0.0.1 included. A proxy resolves the
    /// names it is given, so the browser's own fetches (Google's sign-in, update and time services)
    /// bypass it and fail at the resolver rule instead of leaving the machine through it.
    static func proxy(_ base: String) -> [String] {
        ["--proxy-server=\(base)",
         "--proxy-bypass-list=<-loopback>;*.google.com;*.googleapis.com;*.gstatic.com;*.gvt1.com;*.googleusercontent.com"]
    }

    /// The DOM after the page's scripts ran for `budgetMs` of virtual time (`--dump-dom`).
    /// `flags` go before the page (such as `--host-resolver-rules`, to send a made-up name to 127.0.0.1).
    static func dumpDOM(_ url: String, budgetMs: Int = 5000, flags: [String] = []) async throws -> String {
        try await run(flags + ["--virtual-time-budget=\(budgetMs)", "--dump-dom", url]).text
    }

    /// A PNG of the page at a window size (`--screenshot`).
    static func screenshot(_ url: String, to file: URL, width: Int = 1280, height: Int = 800, budgetMs: Int = 5000) async throws {
        _ = try await run(["--virtual-time-budget=\(budgetMs)", "--hide-scrollbars", "--screenshot=\(file.path)",
                           "--window-size=\(width),\(height)", url])
    }

    /// What a page's own `WebSocket` heard holding a conversation (`scripts/chromium_ws.py`, which
    /// drives the browser in real time over the DevTools pipe): one line per message, then how it closed.
    /// With `page`, the page is loaded first (a socket to its https origin may then ride its HTTP/2
    /// connection, RFC 8441); `flags` go after the shared ones.
    static func webSocket(_ url: String, _ steps: [String], page: String? = nil, flags more: [String] = []) async throws -> String {
        guard let path else { throw FixtureError(message: missing) }
        let script = ExampleUpstream.repositoryRoot.appending(path: "scripts/chromium_ws.py").path
        let result = try await Subprocess.run(
            executable: "/usr/bin/env",
            arguments: ["timeout", "--kill-after=5", "\(90 * Deadlines.scale)", "python3", script, path, url,
                        "--load-timeout", "\(Deadlines.clientCall)"] + (page.map { ["--page", $0] } ?? [])
                + (flags + more).map { "--browser-flag=\($0)" } + steps)
        guard result.status == 0 else {
            throw FixtureError(message: "chromium_ws.py exited with \(result.status): \(result.error.suffix(2000))")
        }
        return result.text
    }

    /// Runs the browser with a fresh profile, killed after `seconds` (coreutils `timeout`).
    private static func run(_ arguments: [String], seconds: Int = 90) async throws -> Curl.Result {
        guard let path else { throw FixtureError(message: missing) }
        let profile = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: profile) }
        let result = try await Subprocess.run(
            executable: "/usr/bin/env",
            arguments: ["timeout", "--kill-after=5", String(seconds), path] + flags + ["--user-data-dir=\(profile.path)"] + arguments,
            environment: ["HOME": profile.path])
        guard result.status == 0 else {
            throw FixtureError(message: "chromium exited with \(result.status) (124: killed after \(seconds) s): \(result.error.suffix(2000))")
        }
        return result
    }
}
