import Foundation

/// A body kept in a side file beside its cassette (`NAME.bodies/<sha256>.bin`): where it is and how
/// large, known without reading it. The bytes are read only when a body is sent or asked for.
public struct BodyFile: Sendable, Hashable {
    /// The side file.
    public let url: URL
    /// Its size in bytes, as found when the cassette was read or the body recorded.
    public let size: Int

    /// Describes a side file of `size` bytes.
    public init(url: URL, size: Int) {
        self.url = url
        self.size = size
    }

    /// The SHA-256 of the bytes in hexadecimal: the file's name without `.bin`.
    public var digest: String { url.deletingPathExtension().lastPathComponent }

    /// Whether the file is named after its content (64 hexadecimal digits), as every side file a
    /// cassette names is; a spool file being written is not, and its bytes are not checked.
    public var isNamedByContent: Bool { Self.isDigest(digest) }

    /// Whether a name is a SHA-256 in lowercase hexadecimal.
    static func isDigest(_ name: some StringProtocol) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The most bytes ``read(pieceSize:_:)`` hands over at once, by default.
    public static let defaultPieceSize = 1 << 16

    /// Reads the whole file: for small files, or callers that need every byte at once.
    public func contents() throws(SideFileError) -> Data {
        var data = Data()
        data.reserveCapacity(size)
        try read { data.append($0) }
        return data
    }

    /// The first `maxLength` bytes at most, reading no further into the file (empty when it cannot be read).
    public func prefix(_ maxLength: Int) -> Data {
        guard case .opened(let descriptor) = SystemCalls.openForReadingWithoutFollowingLinks(url.path) else { return Data() }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        return (try? handle.read(upToCount: min(maxLength, size))) ?? Data()
    }

    /// Reads the file in order, handing `body` pieces of at most `pieceSize` bytes, so a file of
    /// any size is read in bounded memory. The file is opened without following a link, and its
    /// bytes are hashed as they go: throws when the file is gone, is a link, is no longer ``size``
    /// bytes, or (after the last piece) does not have the ``digest`` it is named after (when it is
    /// ``isNamedByContent``).
    public func read(pieceSize: Int = defaultPieceSize, _ body: (Data) throws -> Void) throws(SideFileError) {
        let descriptor: Int32
        switch SystemCalls.openForReadingWithoutFollowingLinks(url.path) {
        case .opened(let opened): descriptor = opened
        case .link: throw .notAFile(url.path)
        case .failed: throw .missing(url.path)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var total = 0
        var hash = SHA256()
        do {
            while let piece = try handle.read(upToCount: pieceSize), !piece.isEmpty {
                total += piece.count
                guard total <= size else { break }
                hash.update(piece)
                try body(piece)
            }
        } catch let error as SideFileError {
            throw error
        } catch {
            throw .unreadable(url.path, "\(error)")
        }
        guard total == size else { throw .sizeChanged(url.path, expected: size, found: total) }
        guard isNamedByContent else { return }
        let found = hash.finalize().hexadecimal
        guard found == digest else { throw .digestMismatch(url.path, found: found) }
    }
}
