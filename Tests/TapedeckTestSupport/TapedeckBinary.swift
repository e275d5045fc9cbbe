import Foundation

/// The `tapedeck` executable that `swift build` / `swift test` put next to the test bundle,
/// for tests that run the real command line as a child process.
public enum TapedeckBinary {
    /// Finds the executable: `TAPEDECK_BINARY` when set (a release build, say), else beside the
    /// running test bundle, or in `.build/debug`.
    public static func locate() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["TAPEDECK_BINARY"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else { throw TapedeckBinaryError() }
            return URL(fileURLWithPath: path)
        }
        var candidates = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()]
        if let first = CommandLine.arguments.first { candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent()) }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(ExampleUpstream.repositoryRoot.appendingPathComponent(".build/debug"))
        for folder in candidates {
            var directory = folder
            for _ in 0..<4 {
                let binary = directory.appendingPathComponent("tapedeck")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: binary.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                   FileManager.default.isExecutableFile(atPath: binary.path) {
                    return binary
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw TapedeckBinaryError()
    }
}

/// The executable was not built.
public struct TapedeckBinaryError: Error, CustomStringConvertible {
    public var description: String { "the tapedeck executable was not found next to the tests; run `swift build` first" }
}
