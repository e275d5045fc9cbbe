import Foundation
import Testing
@testable import TapedeckCore

@Suite("Growing files: atomic versions written by appending to a spare")
struct GrowingFileTests {
    let folder: URL
    let file: URL
    let spare: URL

    init() throws {
        folder = try makeTemporaryDirectory()
        file = folder.appendingPathComponent("f.json")
        spare = folder.appendingPathComponent(".f.json.spare")
    }

    /// Saves a version made of `items` between "[" and "]COUNT", checking that no item the
    /// file promised not to need again is asked for.
    func save(_ growing: GrowingFile, _ items: [String]) throws {
        let pieces = items.map { Array($0.utf8)[...] }
        let oldestNeeded = growing.oldestNeeded
        try growing.save(count: items.count, head: Array("[".utf8)[...], items: { index in
            #expect(index >= oldestNeeded)
            return Array(pieces[index...])
        }, tail: Array("]\(items.count)".utf8)[...])
    }

    func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }
    func inode(_ url: URL) throws -> Int { try #require(FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int) }
    func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    @Test("versions take turns in two files; the spare is cut back and extended, not written anew")
    func versionsTakeTurns() throws {
        let growing = GrowingFile(url: file, keepsSpare: true)
        try save(growing, ["a"])
        #expect(try text(file) == "[a]1")
        #expect(!exists(spare))
        try save(growing, ["a", "b"])
        #expect(try text(file) == "[ab]2")
        #expect(try text(spare) == "[a]1")
        let (fileInode, spareInode) = (try inode(file), try inode(spare))
        try save(growing, ["a", "b", "c", "d"])
        #expect(try text(file) == "[abcd]4")
        #expect(try text(spare) == "[ab]2")
        #expect(try inode(file) == spareInode && inode(spare) == fileInode, "the two files swapped places")
        try save(growing, ["a", "b", "c", "d", "e"])
        #expect(try text(file) == "[abcde]5")
        #expect(try inode(file) == fileInode)
        growing.removeSpare()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["f.json"])
    }

    @Test("a spare a killed run left is removed; a spare that cannot be written fails one save and loses nothing")
    func brokenSpare() throws {
        try Data("cut short by kill -9".utf8).write(to: spare)
        let growing = GrowingFile(url: file, keepsSpare: true)
        #expect(!exists(spare))
        try save(growing, ["a"])
        try save(growing, ["a", "b"])
        try FileManager.default.removeItem(at: spare)
        try FileManager.default.createDirectory(at: spare, withIntermediateDirectories: false)
        #expect(throws: AtomicWriteError.self) { try save(growing, ["a", "b", "c"]) }
        #expect(try text(file) == "[ab]2", "the file keeps the last good version")
        #expect(growing.oldestNeeded == 2)
        try save(growing, ["a", "b", "c"])
        #expect(try text(file) == "[abc]3", "the next save copies what the file holds and appends the rest")
        try FileManager.default.removeItem(at: spare)
        try save(growing, ["a", "b", "c", "d"])
        try save(growing, ["a", "b", "c", "d", "e"])
        #expect(try text(file) == "[abcde]5")
        #expect(try text(spare) == "[abcd]4")
    }

    @Test("without a spare every save writes a whole new file; a reader of an old one keeps it intact")
    func withoutSpare() throws {
        let growing = GrowingFile(url: file, keepsSpare: false)
        try save(growing, ["0"])
        let reader = try FileHandle(forReadingFrom: file)
        defer { try? reader.close() }
        for count in 2...3 {
            try save(growing, (0..<count).map(String.init))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["f.json"])
        }
        #expect(try text(file) == "[012]3")
        #expect(String(decoding: try reader.readToEnd() ?? Data(), as: UTF8.self) == "[0]1")
    }
}
