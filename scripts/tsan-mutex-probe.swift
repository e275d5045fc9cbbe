// Shows that ThreadSanitizer on Linux reports "Swift access race" for state guarded by a
// contended Synchronization.Mutex (its futex slow path is invisible to TSan), so such
// reports in CassetteWriter/InFlightExchanges are false positives. The count printed is
// always 1200. Run: swiftc -sanitize=thread -g scripts/tsan-mutex-probe.swift -o /tmp/probe && /tmp/probe
import Synchronization
import Foundation
final class Box: Sendable { let m = Mutex<[Int]>([]) }
let box = Box()
let group = DispatchGroup()
for t in 0..<4 {
    DispatchQueue.global().async(group: group) {
        for i in 0..<300 { box.m.withLock { $0.append(i + t); usleep(100) } }
    }
}
group.wait()
print(box.m.withLock { $0.count })
