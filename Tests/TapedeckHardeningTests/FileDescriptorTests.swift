import Foundation
import TapedeckTestSupport
import Testing

/// Out of file descriptors: the real `tapedeck replay` started with a soft limit of 64 under a hard
/// one of 128 (`prlimit`), then more connections than that. It raises its soft limit to the hard
/// one at start, backs off accepting while `accept` fails instead of retrying it in a loop, and
/// answers the connections it has meanwhile.
@Suite(.serialized) struct FileDescriptorTests {
    @Test func outOfDescriptorsTheServerBacksOffAndServesTheConnectionsItHas() async throws {
        let prlimit = "/usr/bin/prlimit"
        try #require(FileManager.default.isExecutableFile(atPath: prlimit), "prlimit (util-linux) is needed")
        // Connecting the flood may take a minute under a sanitizer (the kernel's queue full, each
        // connect waits): the kept connection must not be closed as idle meanwhile.
        let server = try TapedeckProcess(["replay", "--port", "0", "--idle-timeout", "600", "--header-timeout", "600",
                                          HardeningFixtures.exampleCassette.path],
                                         launcher: [prlimit, "--nofile=64:128"])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        let pid = server.process.processIdentifier
        let limit = try #require(try Self.openFilesLimit(of: pid))
        #expect(limit.soft == 128 && limit.hard == 128, "the soft limit is raised to the hard one: \(limit)")

        let kept = try RawSocket(port: port)
        let request = "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\n\r\n"
        kept.send(request)
        #expect(String(decoding: await kept.read { $0.ends(with: "Hello Shawn!") }.data, as: UTF8.self).hasSuffix("Hello Shawn!"))

        // More connections than the server has descriptors left: the kernel queues them, `accept` fails.
        var flood: [RawSocket] = []
        for _ in 0..<200 { flood.append(try RawSocket(port: port)) }
        try await Task.sleep(for: .milliseconds(500))
        let ticksBefore = try Self.cpuTicks(of: pid)
        try await Task.sleep(for: .seconds(2))
        let ticksSpent = try Self.cpuTicks(of: pid) - ticksBefore
        kept.send(request)
        let answered = await kept.read { $0.ends(with: "Hello Shawn!") }

        // A loop retrying `accept` burns a whole core: about 200 ticks (of 100 a second) in these two seconds.
        #expect(ticksSpent < 50, "the server used \(ticksSpent) ticks of CPU in 2 s while out of descriptors")
        #expect(answered.ending == .satisfied, "the connection it had is still served")
        for socket in flood { socket.hangUp() }
        flood.removeAll()
        try await Task.sleep(for: .milliseconds(500))
        let after = try await RawSocket.exchange(port: port, "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(String(decoding: after.data, as: UTF8.self).hasSuffix("Hello Shawn!"), "new connections are taken again")
    }

    /// The soft and hard "Max open files" of a process, from /proc.
    static func openFilesLimit(of pid: Int32) throws -> (soft: Int, hard: Int)? {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else { return nil }
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        guard numbers.count >= 2 else { return nil }
        return (numbers[0], numbers[1])
    }

    /// The CPU time a process used so far, user and system, in clock ticks.
    static func cpuTicks(of pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The fields after the command name, which is in parentheses and may hold spaces.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
}

private extension Data {
    func ends(with text: String) -> Bool { self.suffix(text.utf8.count).elementsEqual(text.utf8) }
}
