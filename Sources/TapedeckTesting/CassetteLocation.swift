import Foundation

/// Where a test's cassette file lives: `<directory>/<name>.json`.
///
/// The directory is, in order: `TAPEDECK_CASSETTE_DIR` (so a recording run can write into
/// the source tree while tests replay from a copied resource), the one the test names, or a
/// `cassettes` folder beside the test's source file (from `#filePath`). Tests that run on a
/// device or simulator, where the source tree does not exist, name a bundle's folder with
/// ``directory(in:subdirectory:)``: `directory: CassetteLocation.directory(in: .module)`.
public struct CassetteLocation: Sendable, Hashable {
    /// The environment variable that overrides the default directory.
    public static let environmentVariable = "TAPEDECK_CASSETTE_DIR"

    /// The cassette's name as the test gave it.
    public let name: String
    /// The cassette file.
    public let file: URL

    /// The folder of cassettes copied into a bundle as a resource (`resources: [.copy("cassettes")]`),
    /// such as a test target's `Bundle.module`; nil when the bundle has no such folder.
    public static func directory(in bundle: Bundle, subdirectory: String = "cassettes") -> URL? {
        guard let folder = bundle.resourceURL?.appendingPathComponent(subdirectory, isDirectory: true),
              FileManager.default.fileExists(atPath: folder.path) else { return nil }
        return folder
    }

    /// Resolves a cassette name.
    ///
    /// - Throws: ``TestCassetteError/invalidName(_:)`` for an empty name or one containing `..`.
    public init(name: String, directory: URL? = nil, filePath: String,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(TestCassetteError) {
        guard !name.isEmpty, !name.split(separator: "/").contains(".."), !name.hasPrefix("/") else {
            throw .invalidName(name)
        }
        let folder: URL
        if let fromEnvironment = environment[Self.environmentVariable], !fromEnvironment.isEmpty {
            folder = URL(fileURLWithPath: fromEnvironment, isDirectory: true)
        } else if let directory {
            folder = directory
        } else {
            folder = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("cassettes", isDirectory: true)
        }
        self.name = name
        self.file = folder.appendingPathComponent(name.hasSuffix(".json") ? name : "\(name).json")
    }
}
