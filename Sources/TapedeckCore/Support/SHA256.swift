import Foundation

/// SHA-256 (FIPS 180-4), for naming side files by their content.
///
/// Written here rather than taken from swift-crypto: on Linux swift-crypto compiles BoringSSL,
/// which took 45 of the 63 seconds a clean build of a package depending on `Tapedeck` needed.
/// Side-file names only need a stable content hash, the same on every platform; this gives the
/// standard digest (tested against the published test vectors and Python's hashlib); a body
/// pays for it once, when it is written to its side file.
///
/// ```swift
/// var hash = SHA256()
/// hash.update(Data("abc".utf8))
/// hash.finalize().hexadecimal   // "ba7816bf…"
/// ```
public struct SHA256: Sendable {
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Bytes not yet hashed: always fewer than one 64-byte block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    /// Starts a new hash.
    public init() {
        pending.reserveCapacity(64)
    }

    /// The digest of `data` in one call.
    public static func hash(_ data: some ContiguousBytes) -> Digest {
        var hash = SHA256()
        hash.update(data)
        return hash.finalize()
    }

    /// Adds bytes to the hash.
    public mutating func update(_ data: some ContiguousBytes) {
        data.withUnsafeBytes { bytes in
            length &+= UInt64(bytes.count)
            var rest = bytes[...]
            if !pending.isEmpty {
                let taken = min(64 - pending.count, rest.count)
                pending.append(contentsOf: rest.prefix(taken))
                rest = rest.dropFirst(taken)
                guard pending.count == 64 else { return }
                pending.withUnsafeBytes { compress(UnsafeRawBufferPointer($0)) }
                pending.removeAll(keepingCapacity: true)
            }
            while rest.count >= 64 {
                compress(UnsafeRawBufferPointer(rebasing: rest.prefix(64)))
                rest = rest.dropFirst(64)
            }
            pending.append(contentsOf: rest)
        }
    }

    /// Pads the message and returns the digest.
    public consuming func finalize() -> Digest {
        let bitLength = length &* 8
        var tail = pending + [0x80]
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        pending = []
        tail.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: 64) {
                compress(UnsafeRawBufferPointer(rebasing: bytes[start ..< start + 64]))
            }
        }
        return Digest(bytes: state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } })
    }

    /// Mixes one 64-byte block into the state.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            compress(block, schedule: schedule)
        }
    }

    /// Mixes one block into the state, using `schedule` (64 words) as scratch space.
    private mutating func compress(_ block: UnsafeRawBufferPointer, schedule: UnsafeMutableBufferPointer<UInt32>) {
        for index in 0..<16 {
            schedule[index] = (0..<4).reduce(0) { $0 << 8 | UInt32(block[index * 4 + $1]) }
        }
        for index in 16..<64 {
            let s0 = schedule[index - 15].rotatedRight(7) ^ schedule[index - 15].rotatedRight(18) ^ (schedule[index - 15] >> 3)
            let s1 = schedule[index - 2].rotatedRight(17) ^ schedule[index - 2].rotatedRight(19) ^ (schedule[index - 2] >> 10)
            schedule[index] = schedule[index - 16] &+ s0 &+ schedule[index - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for index in 0..<64 {
            let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = (e & f) ^ (~e & g)
            let temp1 = h &+ sum1 &+ choice &+ Self.roundConstants[index] &+ schedule[index]
            let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temp1, c, b, a, temp1 &+ sum0 &+ majority)
        }
        for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { state[index] &+= value }
    }

    /// A finished SHA-256 digest: 32 bytes.
    public struct Digest: Sendable, Hashable {
        /// The 32 bytes.
        public let bytes: [UInt8]

        /// The digest as 64 lowercase hexadecimal digits.
        public var hexadecimal: String {
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xf)]] }, as: UTF8.self)
        }
    }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

extension UInt32 {
    /// The bits rotated right by `count`.
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { self >> count | self << (32 - count) }
}
