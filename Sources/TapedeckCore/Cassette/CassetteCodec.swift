import Foundation

/// Reads and writes cassette files: deterministic pretty JSON with sorted keys, side files for
/// large bodies, atomic replacement, and errors that name the file and the place.
public struct CassetteCodec: Sendable {
    /// Bodies above this many bytes are written to side files by default (1 MiB).
    public static let defaultSideFileThreshold = 1 << 20

    /// Bodies above this many bytes are written to side files.
    public var sideFileThreshold: Int

    /// What the files read are, as their errors name them: a cassette, or a stubs file (`--stubs`).
    package var document = JSONDocumentKind.cassette

    /// Creates a codec.
    public init(sideFileThreshold: Int = CassetteCodec.defaultSideFileThreshold) {
        self.sideFileThreshold = sideFileThreshold
    }

    /// A codec that reads files of `document`'s kind, its errors named so.
    package init(reading document: JSONDocumentKind) {
        self.init()
        self.document = document
    }

    /// Reads a cassette file and the side files it names.
    public func load(_ file: URL) throws(CassetteError) -> Cassette {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw CassetteError(file: file.path, kind: .io("cannot read: \(UnreadableFile.reason(error, reading: file))"))
        }
        return try decode(data, file: file)
    }

    /// Parses cassette bytes; `file` names the cassette in errors and locates its side files.
    public func decode(_ data: Data, file: URL? = nil) throws(CassetteError) -> Cassette {
        let sideFiles = SideFiles(cassetteFile: file, threshold: sideFileThreshold)
        let makeDecoder: @Sendable () -> JSONDecoder = { Self.decoder(sideFiles: sideFiles) }
        if let cassette = InteractionSlices.decode(data, configure: makeDecoder) { return cassette }
        return try Self.decoding(data, file: file, document: document) { try makeDecoder().decode(Cassette.self, from: data) }
    }

    /// Every reason cassette bytes do not load, for a report that lists them all (`tapedeck
    /// lint`); empty when they load. ``decode(_:file:)`` stops at the first; when that one lies in
    /// an interaction, each interaction is decoded on its own, and each that fails adds its own
    /// error, named by its place in the whole file (`interactions[7].response.status`).
    package func errors(decoding data: Data, file: URL? = nil) -> [CassetteError] {
        let first: CassetteError
        do {
            _ = try decode(data, file: file)
            return []
        } catch {
            first = error
        }
        guard case .content(let path, _) = first.kind, path.hasPrefix("interactions["),
              let layout = data.withUnsafeBytes({ InteractionSlices.scan($0) }) else { return [first] }
        let sideFiles = SideFiles(cassetteFile: file, threshold: sideFileThreshold)
        let errors = layout.elements.enumerated().compactMap { index, range -> CassetteError? in
            let element = Data(data[(data.startIndex + range.lowerBound) ..< (data.startIndex + range.upperBound)])
            do throws(CassetteError) {
                // An interaction is a piece of the cassette: its errors read as they do in the whole file.
                _ = try Self.decoding(element, file: file, document: nil) {
                    try Self.decoder(sideFiles: sideFiles).decode(Interaction.self, from: element)
                }
                return nil
            } catch {
                guard case .content(let inner, let message) = error.kind else { return error }
                let place = "interactions[\(index)]" + (inner.isEmpty ? "" : "." + inner)
                return CassetteError(file: error.file, kind: .content(path: place, message: message))
            }
        }
        // The first stays when decoding interactions alone does not find it (a rule across them).
        return errors.contains { $0.kind == first.kind } ? errors : [first] + errors
    }

    /// A decoder that reads side files from `sideFiles`.
    private static func decoder(sideFiles: SideFiles) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[.tapedeckSideFiles] = sideFiles
        return decoder
    }

    /// Runs `decode` over `data`, its failure as a ``CassetteError`` naming `file` and the place.
    private static func decoding<Value>(_ data: Data, file: URL?, document: JSONDocumentKind?,
                                        _ decode: () throws -> Value) throws(CassetteError) -> Value {
        do {
            return try decode()
        } catch var error as CassetteError {
            error.file = file?.path
            throw error
        } catch let error as DecodingError {
            throw CassetteError(file: file?.path, kind: Self.kind(of: error, in: data, document: document))
        } catch {
            throw CassetteError(file: file?.path, kind: .io("\(error)"))
        }
    }

    /// The cassette file's bytes, and the side files to write beside it when `file` is given.
    public func encode(_ cassette: Cassette, file: URL? = nil) throws(CassetteError) -> EncodedCassette {
        let sideFiles = SideFiles(cassetteFile: file, threshold: sideFileThreshold)
        let fragments = encodeFragments(cassette.interactions, sideFiles: sideFiles)
        let pieces = [Self.head] + FragmentLog.items(fragments.pieces(from: 0), from: 0)
            + [try tail(meta: cassette.meta, stubs: cassette.stubsJSON, count: fragments.count, file: file)]
        return EncodedCassette(pieces: pieces, sideFiles: sideFiles.takePending())
    }

    /// Writes a cassette atomically: side files first, then the cassette replaced in one rename.
    public func save(_ cassette: Cassette, to file: URL) throws(CassetteError) {
        try encode(cassette, file: file).write(to: file)
    }

    // MARK: Incremental writing

    /// Interactions as they stand inside the `interactions` array: pretty, sorted, indented.
    func encodeFragments(_ interactions: [Interaction], sideFiles: SideFiles) -> FragmentLog {
        FragmentLog(interactions) { interaction, out in encodeFragment(interaction, sideFiles: sideFiles, into: &out) }
    }

    /// Appends one interaction as it stands inside the `interactions` array.
    func encodeFragment(_ interaction: Interaction, sideFiles: SideFiles, into out: inout [UInt8]) {
        InteractionWriter.encode(interaction, indent: 4, sideFiles: sideFiles, into: &out)
    }

    /// The bytes before the first interaction.
    static let head = Array("{\n  \"interactions\" : [".utf8)[...]

    /// The bytes after the last of `count` interactions: the end of the array, `meta`, the
    /// hand-written `stubs` as they were read (when there are any) and `version`.
    func tail(meta: CassetteMeta, stubs: [JSONValue] = [], count: Int, file: URL?) throws(CassetteError) -> FragmentLog.Piece {
        let metaBytes: [UInt8]
        let stubBytes: [UInt8]
        do {
            metaBytes = Self.indented(try Self.prettyEncoder(sideFiles: nil).encode(meta), by: 2)
            stubBytes = stubs.isEmpty ? []
                : Array(",\n  \"stubs\" : ".utf8) + Self.indented(try Self.prettyEncoder(sideFiles: nil).encode(stubs), by: 2)
        } catch {
            throw CassetteError(file: file?.path, kind: .io("cannot encode meta: \(error)"))
        }
        return (Array((count == 0 ? "],\n  \"meta\" : " : "\n  ],\n  \"meta\" : ").utf8) + metaBytes + stubBytes
            + Array(",\n  \"version\" : \(Cassette.formatVersion)\n}\n".utf8))[...]
    }

    private static func prettyEncoder(sideFiles: SideFiles?) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        if let sideFiles { encoder.userInfo[.tapedeckSideFiles] = sideFiles }
        return encoder
    }

    /// Indents every line after the first; safe because JSON strings never hold a raw newline.
    private static func indented(_ data: Data, by spaces: Int) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(data.count + data.count / 4)
        for byte in data {
            out.append(byte)
            if byte == UInt8(ascii: "\n") { out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: spaces)) }
        }
        return out
    }

    // MARK: Errors

    /// What a decoding failure of `data`, a `document`, says, for users: the place and the problem
    /// in the project's words (``DecodingMessage``), or the line and column of a JSON syntax error.
    /// The one rule for every JSON file Tapedeck reads: cassettes, stubs, HAR files, journals. A nil
    /// `document` is a piece of a larger one (an interaction), whose top level is not named.
    package static func kind(of error: DecodingError, in data: Data, document: JSONDocumentKind?) -> CassetteError.Kind {
        switch error {
        case let .typeMismatch(type, context), let .valueNotFound(type, context):
            let message = DecodingMessage.mismatch(expected: type, said: context.debugDescription, at: context.codingPath,
                                                   in: data, document: document)
            return .content(path: path(context.codingPath), message: message ?? DecodingMessage.shortened(context.debugDescription))
        case let .keyNotFound(key, context):
            return .content(path: path(context.codingPath + [key]), message: "required field is missing")
        case let .dataCorrupted(context):
            if context.codingPath.isEmpty, let syntax = JSONSyntaxLocator.locate(in: data) { return syntax }
            let message = DecodingMessage.shortened(context.debugDescription)
            guard context.codingPath.isEmpty, let document else { return .content(path: path(context.codingPath), message: message) }
            return .content(path: "", message: "\(document.name): \(message)")
        @unknown default:
            return .content(path: "", message: "\(document.map { "\($0.name): " } ?? "")\(error)")
        }
    }

    /// A coding path as users write it: `interactions[3].response.status`, or `log.entries[3]` in a
    /// HAR file.
    static func path(_ codingPath: [CodingKey]) -> String {
        var out = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index") || key.stringValue == "\(index)" {
                out += "[\(index)]"
            } else {
                out += out.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return out
    }
}

/// A cassette's bytes and the side files that must be written beside it.
public struct EncodedCassette: Sendable {
    /// The cassette file, in pieces written one after another.
    var pieces: [FragmentLog.Piece]
    /// Large bodies to write beside the cassette before it.
    var sideFiles: [SideFiles.Pending]

    /// The cassette file's bytes.
    public var bytes: Data {
        var bytes = Data(capacity: pieces.reduce(0) { $0 + $1.count })
        for piece in pieces { bytes.append(contentsOf: piece) }
        return bytes
    }

    /// Writes the side files, then replaces the cassette atomically.
    public func write(to file: URL) throws(CassetteError) {
        do {
            try SideFiles.write(sideFiles, into: file.deletingLastPathComponent())
            try AtomicFile.write(pieces, to: file)
        } catch {
            throw CassetteError(file: file.path, kind: .io("\(error)"))
        }
    }
}
