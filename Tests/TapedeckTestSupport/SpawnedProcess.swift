import CSpawnActions
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, with the members of Foundation's `Process` that the
/// tests use, so that a test reads as it would with `Process`.
///
/// Why not `Process`: Swift 6.3.1's Foundation on Linux crashes the test process now and then inside
/// `Process.run()`. Before it spawns, it counts the open descriptors by reading `/proc/self/fd` and
/// copies 256 bytes of every directory entry, over-reading glibc's buffer
/// (`findMaximumOpenFromProcSelfFD`, fixed upstream by swift-corelibs-foundation pull request 5472).
/// A suite that starts hundreds of curl and Python processes hit it in about one run of three. Here
/// the child's descriptors above standard error are closed by the C library instead
/// (`posix_spawn_file_actions_addclosefrom_np` on glibc, `POSIX_SPAWN_CLOEXEC_DEFAULT` on Darwin;
/// the C target CSpawnActions reaches the glibc call, which Swift's Glibc module does not expose).
public final class SpawnedProcess: @unchecked Sendable {
    /// How the child ended.
    public enum TerminationReason: Sendable { case exit, uncaughtSignal }

    /// The program to run.
    public var executableURL: URL?
    /// Its arguments, after the program's own name.
    public var arguments: [String] = []
    /// Its whole environment; nil inherits the test process's.
    public var environment: [String: String]?
    /// Its working folder; nil inherits the test process's.
    public var currentDirectoryURL: URL?
    /// Standard input, output and error: a `Pipe`, a `FileHandle`, or nil to inherit the test process's.
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?

    /// The child's process id, once `run()` returned.
    public private(set) var processIdentifier: pid_t = 0
    private let lock = NSLock()
    /// `waitpid`'s status once the child was reaped.
    private var exitStatus: Int32?

    public init() {}

    /// Starts the child. Throws if the program cannot be spawned.
    public func run() throws {
        guard let executable = executableURL?.path else { throw SpawnError(program: "(none)", code: EINVAL) }
        var actions = Self.newFileActions()
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = Self.newAttributes()
        defer { posix_spawnattr_destroy(&attributes) }

        var parentEnds: [FileHandle] = []
        for (stream, descriptor) in [(standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO)] {
            let childEnd: FileHandle?
            switch stream {
            case let pipe as Pipe:
                childEnd = descriptor == STDIN_FILENO ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                parentEnds.append(childEnd!)
            case let handle as FileHandle:
                childEnd = handle
            default:
                childEnd = nil
            }
            // Foundation's `FileHandle.nullDevice` has no descriptor of its own (-1).
            if let childEnd, childEnd.fileDescriptor >= 0 {
                posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, descriptor)
            } else if childEnd != nil {
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0)
            }
        }
        #if !canImport(Darwin)
        // Where the C library cannot (musl), the child inherits what is not close-on-exec.
        _ = tapedeck_spawn_close_from(&actions, STDERR_FILENO + 1)
        #endif
        if let directory = currentDirectoryURL?.path {
            tapedeck_spawn_chdir(&actions, directory)
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = environmentLines.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard code == 0 else { throw SpawnError(program: executable, code: code) }
        processIdentifier = pid
        // The child holds its own copies now; the parent's copies of the child's ends would keep a
        // pipe open after the child exits, so a read to the end would never end.
        for handle in parentEnds { try? handle.close() }
    }

    /// Whether the child has not exited yet (it is reaped the first time this sees it exited).
    public var isRunning: Bool {
        lock.withLock {
            guard exitStatus == nil, processIdentifier != 0 else { return false }
            var status: Int32 = 0
            switch waitpid(processIdentifier, &status, WNOHANG) {
            case processIdentifier: exitStatus = status
            case -1 where errno == ECHILD: exitStatus = 0  // reaped by someone else: its status is lost
            default: break
            }
            return exitStatus == nil
        }
    }

    /// Blocks until the child exits.
    public func waitUntilExit() {
        while isRunning { usleep(1_000) }
    }

    /// Sends SIGTERM.
    public func terminate() {
        if isRunning { kill(processIdentifier, SIGTERM) }
    }

    /// Whether the child exited or a signal ended it (valid once it exited).
    public var terminationReason: TerminationReason {
        let signal = (lock.withLock { exitStatus } ?? 0) & 0x7f
        return signal == 0 ? .exit : .uncaughtSignal
    }

    /// The exit code, or the signal's number when a signal ended the child (valid once it exited).
    public var terminationStatus: Int32 {
        let status = lock.withLock { exitStatus } ?? 0
        return terminationReason == .exit ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Spawn attributes: the child starts with no signal blocked and every signal's default action,
    /// whatever the test process blocks or ignores (a test runner may block SIGTERM in its threads).
    private static func newAttributes() -> posix_spawnattr_t {
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t = nil
        #else
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))
        return attributes
    }

    private static func newFileActions() -> posix_spawn_file_actions_t {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        return actions
    }
}

/// `posix_spawn` failed.
public struct SpawnError: Error, CustomStringConvertible {
    /// The program that was to run.
    public let program: String
    /// The error number `posix_spawn` returned.
    public let code: Int32
    public var description: String { "cannot start \(program): \(String(cString: strerror(code)))" }
}
