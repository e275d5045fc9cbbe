import Foundation

/// Large bodies kept beside a cassette as `NAME.bodies/<sha256>.bin`, so cassettes stay small.
final class SideFiles: Sendable {
    /// A body to be written beside the cassette.
    struct Pending: Sendable, Hashable {
        /// The path relative to the cassette's folder.
        let relativePath: String
        /// The bytes.
        let data: Data
    }

    /// The folder the cassette is in; nil for a cassette with no file.
    let directory: URL?
    /// The cassette's file name without `.json`.
    let cassetteName: String
    /// Bodies larger than this many bytes go to a side file when writing.
    let threshold: Int
    private let pending = Locked<[Pending]>([])

    init(cassetteFile: URL?, threshold: Int) {
        directory = cassetteFile?.deletingLastPathComponent()
        cassetteName = cassetteFile.map { $0.deletingPathExtension().lastPathComponent } ?? "cassette"
        self.threshold = threshold
    }

    /// Whether a body of this size is written to a side file.
    func wantsSideFile(for data: Data) -> Bool { directory != nil && data.count > threshold }

    /// Registers a body to write and returns its relative path.
    func add(_ data: Data) -> String {
        let digest = SHA256.hash(data).hexadecimal
        let path = "\(cassetteName).bodies/\(digest).bin"
        pending.withLock { $0.append(Pending(relativePath: path, data: data)) }
        return path
    }

    /// The bodies registered so far, emptied.
    func takePending() -> [Pending] { pending.withLock { list in defer { list = [] }; return list } }

    /// Registers bodies again whose writing failed, so the next save writes them.
    func restore(_ files: [Pending]) { pending.withLock { $0.insert(contentsOf: files, at: 0) } }

    /// Reads a side file named in a cassette, refusing names that leave the bodies folder.
    func read(_ relativePath: String) throws(SideFileError) -> Data {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].hasSuffix(".bodies"), parts[1].hasSuffix(".bin"),
              !parts.contains(where: { $0.isEmpty || $0.hasPrefix(".") }) else {
            throw .badName(relativePath)
        }
        guard let directory else { throw .noFolder(relativePath) }
        let url = directory.appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else { throw .missing(url.path) }
        return data
    }

    /// Writes registered bodies atomically; content-addressed files already present are kept.
    static func write(_ files: [Pending], into directory: URL) throws {
        for file in files {
            let url = directory.appendingPathComponent(file.relativePath)
            if FileManager.default.fileExists(atPath: url.path) { continue }
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFile.write(file.data, to: url)
        }
    }
}

/// A side file that cannot be used.
enum SideFileError: Error, CustomStringConvertible {
    case badName(String)
    case noFolder(String)
    case missing(String)

    var description: String {
        switch self {
        case .badName(let name): return "side file name \"\(name)\" is not of the form NAME.bodies/<sha256>.bin"
        case .noFolder(let name): return "side file \"\(name)\" cannot be read: the cassette has no folder"
        case .missing(let path): return "side file \(path) does not exist"
        }
    }
}

extension CodingUserInfoKey {
    /// Carries the ``SideFiles`` of the cassette being read or written.
    static let tapedeckSideFiles = CodingUserInfoKey(rawValue: "tapedeck.sideFiles")!
}
