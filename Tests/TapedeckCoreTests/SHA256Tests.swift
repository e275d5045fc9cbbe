import Foundation
import Testing
@testable import TapedeckCore
import TapedeckTestSupport

@Suite("SHA-256 for side-file names")
struct SHA256Tests {
    @Test("the published test vectors (FIPS 180-4 examples)", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func publishedVectors(message: String, digest: String) {
        #expect(SHA256.hash(Data(message.utf8)).hexadecimal == digest)
    }

    @Test("a million 'a's, fed in uneven pieces, gives the published digest")
    func millionAs() {
        var hash = SHA256()
        let piece = Data(repeating: UInt8(ascii: "a"), count: 999)
        var left = 1_000_000
        while left > 0 {
            let count = min(left, piece.count - left % 7)
            hash.update(piece.prefix(count))
            left -= count
        }
        #expect(hash.finalize().hexadecimal == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("every length around the block and padding boundaries matches Python's hashlib", .requires(.python3))
    func boundariesMatchHashlib() throws {
        let lengths = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4097]
        let bytes = (0..<4097).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let script = """
            import hashlib, sys
            data = bytes((i * 31 + 7) % 256 for i in range(4097))
            for n in [\(lengths.map(String.init).joined(separator: ","))]:
                print(hashlib.sha256(data[:n]).hexdigest())
            """
        let expected = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script], mergingErrors: false)
            .standardOutput.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        #expect(expected.count == lengths.count)
        for (length, digest) in zip(lengths, expected) {
            #expect(SHA256.hash(Data(bytes.prefix(length))).hexadecimal == digest, "length \(length)")
        }
    }

    @Test("a side file's name is the content hash, so the same bytes give the same name")
    func sideFileNames() {
        let files = SideFiles(cassetteFile: URL(fileURLWithPath: "/tmp/x/api.json"), threshold: 1)
        let data = Data("hello side file".utf8)
        #expect(files.add(data) == "api.bodies/\(SHA256.hash(data).hexadecimal).bin")
        #expect(files.add(data) == files.add(Data("hello side file".utf8)))
    }
}
