import CRenameExchange
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Saves successive versions of a file that grows in one place (a cassette whose interactions
/// array gets longer), each replacing the file atomically, while writing only what was added
/// since the version before last.
///
/// A version is a head, its items in order, and a tail. Two files take turns: the file itself
/// and a hidden spare beside it, `.NAME.spare`, holding the version before. A save cuts the
/// spare back to where its items end, appends the items added since and the tail, flushes it
/// to disk and swaps it with the file in one atomic rename (`renameat2` with
/// `RENAME_EXCHANGE`); the version it replaced becomes the spare. A kill at any moment leaves
/// the file whole, as the previous or the new version; only the spare may be cut short, and
/// it is removed by ``removeSpare()`` and when the next writer starts. Where two files cannot
/// be swapped (an old kernel, a file system without the call), every save writes the whole
/// file, as ``AtomicFile`` does.
///
/// Items already in both files are not needed again: a save without a usable spare copies the
/// file's own items and appends the rest, so the caller may forget every item before
/// ``oldestNeeded``. A reader that keeps the file open across two saves may see its bytes
/// change, since the version it opened is reused as the spare; readers that open the file
/// again see whole versions. Unchecked `Sendable`: it is used from one serial queue only, the cassette writer's.
final class GrowingFile: @unchecked Sendable {
    /// What a file written here holds.
    private struct Version {
        /// How many items.
        var count: Int
        /// The offset where the tail starts.
        var itemsEnd: Int
    }

    /// The file.
    let url: URL
    private let spareURL: URL
    /// What the file holds, when this instance wrote it.
    private var current: Version?
    /// What the spare holds, when there is one.
    private var spare: Version?
    private let keepsSpare: Bool
    private var canSwap: Bool

    /// Prepares to save `url`, removing a spare a killed run may have left; with
    /// `keepsSpare` false every save writes the whole file and no spare is kept.
    init(url: URL, keepsSpare: Bool) {
        self.url = url
        spareURL = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).spare")
        self.keepsSpare = keepsSpare
        canSwap = keepsSpare
        if keepsSpare { removeSpare() }
    }

    /// The first item a later save can ask `items` for; 0 without a spare kept.
    var oldestNeeded: Int {
        keepsSpare ? spare?.count ?? current?.count ?? 0 : 0
    }

    /// Replaces the file by a version with `count` items.
    ///
    /// - Parameters:
    ///   - head: the bytes before the first item.
    ///   - items: the pieces of the items from the given index up to `count`, in order.
    ///   - tail: the bytes after the last item.
    func save(count: Int, head: FragmentLog.Piece, items: (Int) -> [FragmentLog.Piece], tail: FragmentLog.Piece) throws(AtomicWriteError) {
        if canSwap, let spare, spare.count <= count {
            self.spare = nil  // unknown until the swap succeeds
            let added = items(spare.count)
            do {
                try AtomicFile.rewrite(spareURL.path, from: spare.itemsEnd, with: added + [tail])
            } catch {
                removeSpare()
                throw error
            }
            try install(spareURL.path, Version(count: count, itemsEnd: spare.itemsEnd + Self.length(of: added)))
        } else if keepsSpare, let current, current.count <= count {
            let added = items(current.count)
            let temporary = try AtomicFile.writeTemporary(added + [tail], beside: url, keepingPrefix: current.itemsEnd)
            try install(temporary, Version(count: count, itemsEnd: current.itemsEnd + Self.length(of: added)))
        } else {
            let pieces = [head] + items(0)
            let temporary = try AtomicFile.writeTemporary(pieces + [tail], beside: url)
            try install(temporary, Version(count: count, itemsEnd: Self.length(of: pieces)))
        }
    }

    /// Removes the spare, if there is one.
    func removeSpare() {
        spare = nil
        unlink(spareURL.path)
    }

    /// Puts the flushed file at `path` in place of the file; the replaced version becomes the
    /// spare when this instance wrote it.
    private func install(_ path: String, _ written: Version) throws(AtomicWriteError) {
        if canSwap, let current {
            if tapedeck_rename_exchange(path, url.path) == 0 {
                self.current = written
                if path == spareURL.path || rename(path, spareURL.path) == 0 {
                    spare = current
                } else {
                    unlink(path)
                }
                AtomicFile.syncFolder(of: url)
                return
            }
            // A file system without the call makes this and every later save whole; other failures are reported.
            if ![EINVAL, ENOSYS, ENOTSUP, EOPNOTSUPP, EXDEV].contains(errno) {
                let error = AtomicWriteError(path: url.path, step: "swap with \(path)", errno: errno)
                unlink(path)
                throw error
            }
            canSwap = false
        }
        if rename(path, url.path) != 0 {
            let error = AtomicWriteError(path: url.path, step: "rename", errno: errno)
            unlink(path)
            throw error
        }
        current = written
        AtomicFile.syncFolder(of: url)
    }

    private static func length(of pieces: [FragmentLog.Piece]) -> Int { pieces.reduce(0) { $0 + $1.count } }
}
