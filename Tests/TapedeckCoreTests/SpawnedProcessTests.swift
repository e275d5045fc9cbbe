import Foundation
import TapedeckTestSupport
import Testing

/// The tests' own `posix_spawn` wrapper (``SpawnedProcess``), which replaced Foundation's `Process`:
/// what the other tests rely on it for.
@Suite("Child processes for the tests")
struct SpawnedProcessTests {
    /// Runs `/bin/sh -c SCRIPT` to its end and returns it with its standard output.
    func shell(_ script: String, configure: (SpawnedProcess) -> Void = { _ in }) throws -> (SpawnedProcess, String) {
        let process = SpawnedProcess()
        process.executableURL = URL(filePath: "/bin/sh")
        process.arguments = ["-c", script]
        let output = Pipe()
        process.standardOutput = output
        configure(process)
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process, text)
    }

    @Test("an exit code and a signal are told apart, as Process tells them")
    func exitAndSignal() throws {
        let (exited, _) = try shell("exit 3")
        #expect(exited.terminationReason == .exit)
        #expect(exited.terminationStatus == 3)
        let (signalled, _) = try shell("kill -TERM $$")
        #expect(signalled.terminationReason == .uncaughtSignal)
        #expect(signalled.terminationStatus == SIGTERM)
    }

    @Test("the child holds only its three standard descriptors, whatever the test process has open")
    func noInheritedDescriptors() throws {
        let open = Pipe()
        defer { try? open.fileHandleForWriting.close() }
        #expect(fcntl(open.fileHandleForWriting.fileDescriptor, F_GETFD) & FD_CLOEXEC == 0,
                "Foundation's pipe is not close-on-exec: a child would inherit it unless the spawn closes it")
        let (process, listing) = try shell("ls /proc/$$/fd")
        #expect(process.terminationStatus == 0)
        #expect(listing.split(separator: "\n") == ["0", "1", "2"])
    }

    @Test("the child starts in its folder with the environment it was given, and reads the end of its output")
    func folderAndEnvironment() throws {
        let (process, text) = try shell("pwd; echo \"$GREETING\"") {
            $0.currentDirectoryURL = URL(filePath: "/tmp")
            $0.environment = ["GREETING": "hello"]
        }
        #expect(process.terminationStatus == 0)
        #expect(text == "/tmp\nhello\n")
    }

    @Test("a program that cannot start is an error naming it")
    func missingProgram() {
        let process = SpawnedProcess()
        process.executableURL = URL(filePath: "/nonexistent/tool")
        #expect(throws: SpawnError.self) { try process.run() }
    }
}
