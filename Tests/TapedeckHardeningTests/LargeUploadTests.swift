import Foundation
@_spi(Internals) import TapedeckCore
import TapedeckTestSupport
import Testing

/// Request bodies of any size (SPEC 8a): real `tapedeck replay` and `tapedeck record` processes,
/// curl uploading a generated body over HTTP/1.1 (with a Content-Length, and chunked) and HTTP/2
/// (h2c), a Python upstream that answers with the SHA-256 of what reached it, and the child's
/// resident memory read from /proc while it takes the uploads.
///
/// The body is 200 MiB (32 MiB under a sanitizer, where only the bytes are checked), or
/// `TAPEDECK_LARGE_UPLOAD_MIB` MiB.
@Suite(.serialized) struct LargeUploadTests {
    /// The size of the upload.
    static let size: Int = {
        if let mebibytes = Int(ProcessInfo.processInfo.environment["TAPEDECK_LARGE_UPLOAD_MIB"] ?? "") { return mebibytes << 20 }
        return HardeningFixtures.sanitized ? 32 << 20 : 200 << 20
    }()

    /// How much a child's resident memory may grow while it takes an upload, in KiB: under 100 MiB
    /// whatever the upload's size. Under a sanitizer only the bytes are checked.
    static let growthLimitKiB = HardeningFixtures.sanitized ? Int.max : 100 * 1024

    /// How curl sends the body: its arguments. Over HTTP/1.1 curl asks `Expect: 100-continue` for a
    /// body this large unless told not to.
    static let framings: [(name: String, arguments: [String])] = [
        ("content-length", []),
        ("no-expect", ["-H", "Expect:"]),
        ("chunked", ["-H", "Transfer-Encoding: chunked"]),
        ("h2c", ["--http2-prior-knowledge"]),
    ]

    @Test(.requires(.curl)) func uploadsToAStubAreTakenInBoundedMemoryAndLeaveNoFile() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = try Self.writeBody(in: directory)
        let stubs = directory.appending(path: "stubs.json")
        try Data(#"{"version": 1, "interactions": [], "stubs": [{"request": {"method": "POST", "path": "/upload"}, "response": {"status": 201, "body": {"text": "taken"}}}]}"#.utf8)
            .write(to: stubs)
        let home = directory.appending(path: "home")
        let replay = try TapedeckProcess(["replay", stubs.path, "--port", "0", "--max-body", "\(2 * Self.size)"],
                                         environment: ["TAPEDECK_HOME": home.path])
        let port = try replay.waitUntilListening()
        let growth = try await Self.growthKiB(of: replay) {
            for framing in Self.framings {
                let answer = try Curl.upload(body, to: "http://127.0.0.1:\(port)/upload", framing.arguments)
                #expect(answer.status == "201" && answer.body == "taken", "\(framing.name): \(answer)")
            }
        }
        try await waitUntil { try Self.files(in: home.appending(path: "uploads")).isEmpty }
        #expect(try Self.files(in: home.appending(path: "uploads")).isEmpty, "each upload's file goes with its exchange")
        replay.stop()
        #expect(growth < Self.growthLimitKiB, "the replay server grew by \(growth) KiB")
        print("LARGE-UPLOAD stub \(Self.size >> 20) MiB × \(Self.framings.count): replay grew by \(growth / 1024) MiB")
    }

    @Test(.requires(.curl, .python3)) func uploadIsForwardedWholeRecordedAsASideFileAndMatchedByItsDigest() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = try Self.writeBody(in: directory)
        let digest = try Curl.sha256(of: body)
        let upstream = try ExampleUpstream(script: "scripts/upload_upstream.py", arguments: ["--port", "0"])
        defer { upstream.stop() }
        let cassette = directory.appending(path: "uploads.json")
        let home = directory.appending(path: "home")

        // Recording: each framing reaches the upstream whole.
        let recorder = try TapedeckProcess(["record", cassette.path, "--target", upstream.baseURL, "--port", "0",
                                            "--max-body", "\(2 * Self.size)"], environment: ["TAPEDECK_HOME": home.path])
        let recorderPort = try recorder.waitUntilListening()
        let recorderGrowth = try await Self.growthKiB(of: recorder) {
            for framing in Self.framings {
                let answer = try Curl.upload(body, to: "http://127.0.0.1:\(recorderPort)/upload/\(framing.name)", framing.arguments)
                #expect(answer.status == "200", "\(framing.name): \(answer)")
                #expect(answer.body == #"{"bytes": \#(Self.size), "sha256": "\#(digest)"}"#, "\(framing.name)")
            }
        }
        try await waitUntil { try Self.files(in: home.appending(path: "uploads")).isEmpty }
        let left = try Self.files(in: home.appending(path: "uploads"))
        #expect(left.isEmpty, "each upload's file goes once it is recorded: \(left)")
        recorder.signal(SIGINT)
        #expect(recorder.waitForExit(timeout: 120) == 0)
        #expect(recorderGrowth < Self.growthLimitKiB, "the recorder grew by \(recorderGrowth) KiB")

        // The cassette keeps each request body as a side file with the upload's digest.
        let interactions = try CassetteCodec().load(cassette).interactions
        #expect(interactions.map(\.request.target.path) == Self.framings.map { "/upload/\($0.name)" })
        for interaction in interactions {
            let file = try #require(interaction.request.body.file, "\(interaction.request.url)")
            #expect(file.digest == digest && file.size == Self.size)
            #expect(try Curl.sha256(of: file.url) == digest)
        }

        // Replay: the same bytes match their recording, one byte changed is a miss that names both digests.
        let replay = try TapedeckProcess(["replay", cassette.path, "--port", "0", "--max-body", "\(2 * Self.size)"],
                                         environment: ["TAPEDECK_HOME": home.path])
        let replayPort = try replay.waitUntilListening()
        let changed = try Self.changingOneByte(of: body, in: directory)
        let changedDigest = try Curl.sha256(of: changed)
        let replayGrowth = try await Self.growthKiB(of: replay) {
            for framing in Self.framings {
                let answer = try Curl.upload(body, to: "http://127.0.0.1:\(replayPort)/upload/\(framing.name)", framing.arguments)
                #expect(answer.status == "200" && answer.body.contains(digest), "\(framing.name): \(answer)")
            }
            let miss = try Curl.upload(changed, to: "http://127.0.0.1:\(replayPort)/upload/h2c", ["--http2-prior-knowledge"])
            #expect(miss.status == "599")
            #expect(miss.body.contains(String(digest.prefix(12))) && miss.body.contains(String(changedDigest.prefix(12))), "\(miss.body)")
        }
        try await waitUntil { try Self.files(in: home.appending(path: "uploads")).isEmpty }
        #expect(try Self.files(in: home.appending(path: "uploads")).isEmpty)
        replay.stop()
        #expect(replayGrowth < Self.growthLimitKiB, "replay grew by \(replayGrowth) KiB")
        #expect(try Self.files(in: home.appending(path: "uploads")).isEmpty, "the server's upload folder goes when it stops")
        print("LARGE-UPLOAD record and replay \(Self.size >> 20) MiB × \(Self.framings.count): recorder grew by \(recorderGrowth / 1024) MiB, "
              + "replay by \(replayGrowth / 1024) MiB")
    }

    @Test(.requires(.curl)) func clientLeavingMidUploadLeavesNoFileAndTheServerGoesOn() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let home = directory.appending(path: "home")
        let replay = try TapedeckProcess(["replay", HardeningFixtures.exampleCassette.path, "--port", "0"],
                                         environment: ["TAPEDECK_HOME": home.path])
        let port = try replay.waitUntilListening()

        // Past the in-memory limit (1 MiB), then gone.
        let socket = try RawSocket(port: port)
        socket.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: \(32 << 20)\r\n\r\n")
        let piece = String(repeating: "x", count: 1 << 20)
        for _ in 0..<4 { socket.send(piece) }
        let uploads = home.appending(path: "uploads")
        try await waitUntil { try !Self.files(in: uploads).isEmpty }
        let spooled = try !Self.files(in: uploads).isEmpty
        socket.hangUp()
        try await waitUntil { try Self.files(in: uploads).isEmpty }
        let removed = try Self.files(in: uploads).isEmpty
        let after = try Curl.download("http://127.0.0.1:\(port)/plaintext?name=Shawn", to: directory.appending(path: "after.txt"))
        replay.stop()

        #expect(spooled, "the body went to a file once past the in-memory limit")
        #expect(removed, "the file went with the client")
        #expect(after == "200")
    }

    /// The recording proxy hands an upload past the memory threshold to the upstream as it
    /// arrives: an upstream that answers after its first MiB answers while the client still sends,
    /// and the cassette gets the whole body once it ended. A client that leaves mid-upload, or stops
    /// sending for the body timeout, has its connection closed and nothing recorded, and the proxy goes on.
    @Test(.requires(.python3)) func theRecorderForwardsAnUploadAsItArrivesAndRecordsItOnceWhole() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try ExampleUpstream(script: "scripts/upload_upstream.py", arguments: ["--port", "0"])
        defer { upstream.stop() }
        let cassette = directory.appending(path: "arriving.json")
        let home = directory.appending(path: "home")
        let recorder = try TapedeckProcess(["record", cassette.path, "--target", upstream.baseURL, "--port", "0", "--body-timeout", "1"],
                                           environment: ["TAPEDECK_HOME": home.path])
        let port = try recorder.waitUntilListening()
        let half = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })

        let early = try RawSocket(port: port)
        early.send("POST /early/one HTTP/1.1\r\nHost: x\r\nContent-Length: \(2 * half.count)\r\n\r\n")
        early.send(half)
        let answer = await early.read { String(decoding: $0, as: UTF8.self).contains("answeredAfter") }
        #expect(answer.ending == .satisfied, "the upstream answered while the client still sent: \(answer)")
        early.send(half)

        let leaving = try RawSocket(port: port)
        leaving.send("POST /upload/left HTTP/1.1\r\nHost: x\r\nContent-Length: \(2 * half.count)\r\n\r\n")
        leaving.send(half)
        leaving.hangUp()

        let stalled = try RawSocket(port: port)
        stalled.send("POST /upload/stalled HTTP/1.1\r\nHost: x\r\nContent-Length: \(2 * half.count)\r\n\r\n")
        stalled.send(half)
        let cut = await stalled.read()
        #expect(cut.ending == .closed || cut.ending == .reset, "closed at the body timeout: \(cut.ending)")

        let after = try await RawSocket.exchange(port: port, "POST /upload/after HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        #expect(String(decoding: after.data, as: UTF8.self).hasPrefix("HTTP/1.1 200"), "the proxy goes on")
        try await waitUntil { try Self.files(in: home.appending(path: "uploads")).isEmpty }
        #expect(try Self.files(in: home.appending(path: "uploads")).isEmpty, "no upload's file stays behind")
        recorder.signal(SIGINT)
        #expect(recorder.waitForExit(timeout: 60) == 0)

        let interactions = try CassetteCodec().load(cassette).interactions
        #expect(interactions.map(\.request.target.path) == ["/early/one", "/upload/after"], "only what ended is recorded")
        let file = try #require(interactions.first?.request.body.file)
        #expect(file.size == 2 * half.count)
        #expect(try Curl.sha256(of: file.url) == SHA256.hash(half + half).hexadecimal, "the whole body, though the answer came first")
    }

    /// How much `server`'s resident memory grew above where it stood while `uploads` ran, in KiB.
    static func growthKiB(of server: TapedeckProcess, taking uploads: () throws -> Void) async throws -> Int {
        let before = try #require(server.residentKiB())
        let peak = PeakMemory(server)
        try uploads()
        peak.sample()
        return await peak.finish() - before
    }

    /// Writes the upload: ``LargeBodyPattern``'s bytes.
    static func writeBody(in directory: URL) throws -> URL {
        let file = directory.appending(path: "upload.bin")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let pattern = LargeBodyPattern(size: size)
        for index in 0..<pattern.pieceCount { try handle.write(contentsOf: pattern.piece(index)) }
        return file
    }

    /// A copy of `file` with its middle byte changed.
    static func changingOneByte(of file: URL, in directory: URL) throws -> URL {
        let changed = directory.appending(path: "changed.bin")
        try FileManager.default.copyItem(at: file, to: changed)
        let handle = try FileHandle(forUpdating: changed)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(size / 2))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(size / 2))
        try handle.write(contentsOf: [byte ^ 0xFF])
        return changed
    }

    /// The files below `folder`, in every subfolder (none when there is no folder).
    static func files(in folder: URL) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder.appending(path: name).path, isDirectory: &isFolder) && !isFolder.boolValue
        }
    }
}
