import Foundation
import TapedeckTestSupport

/// A tiny tmpfs mounted for a test, to fill a disk for real; nil when `mount` is not allowed here.
struct SmallFilesystem {
    /// The mount point.
    let directory: URL

    /// Mounts a tmpfs of `kilobytes` at a fresh folder, or returns nil if mounting is refused.
    static func mount(kilobytes: Int) throws -> SmallFilesystem? {
        let directory = try HardeningFixtures.temporaryDirectory()
        let status = run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", directory.path])
        if status != 0 {
            try? FileManager.default.removeItem(at: directory)
            return nil
        }
        return SmallFilesystem(directory: directory)
    }

    /// Fills the filesystem with a file until writes fail; returns the file.
    func fill() -> URL {
        let filler = directory.appending(path: "filler")
        _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
        if let handle = try? FileHandle(forWritingTo: filler) {
            let block = Data(repeating: 0x5A, count: 4096)
            while (try? handle.write(contentsOf: block)) != nil {}
            try? handle.close()
        }
        return filler
    }

    /// Unmounts and removes the folder.
    func unmount() {
        _ = Self.run("/bin/umount", [directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        (try? ChildProcess.run(URL(filePath: tool), arguments))?.status ?? -1
    }
}
