import Foundation

#if canImport(CommonCrypto)
import CommonCrypto
#else
import CLibCrypto
#endif

/// SHA-256, for naming side files by their content: the platform's own implementation
/// (CommonCrypto on Apple platforms, OpenSSL's libcrypto elsewhere), so hashing runs at hundreds
/// of MB/s even in a debug build, and the connector needs neither swift-crypto nor BoringSSL.
///
/// ```swift
/// var hash = SHA256()
/// hash.update(Data("abc".utf8))
/// hash.finalize().hexadecimal   // "ba7816bf…"
/// ```
package struct SHA256: Sendable {
    #if canImport(CommonCrypto)
    private var context = CC_SHA256_CTX()
    #else
    private var context = SHA256_CTX()
    #endif

    /// Starts a new hash.
    package init() {
        #if canImport(CommonCrypto)
        CC_SHA256_Init(&context)
        #else
        SHA256_Init(&context)
        #endif
    }

    /// The digest of `data` in one call.
    package static func hash(_ data: some ContiguousBytes) -> Digest {
        var hash = SHA256()
        hash.update(data)
        return hash.finalize()
    }

    /// Adds bytes to the hash.
    package mutating func update(_ data: some ContiguousBytes) {
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            #if canImport(CommonCrypto)
            // CommonCrypto takes at most 4 GiB a call.
            var offset = 0
            while offset < bytes.count {
                let length = min(bytes.count - offset, Int(UInt32.max))
                CC_SHA256_Update(&context, base + offset, CC_LONG(length))
                offset += length
            }
            #else
            SHA256_Update(&context, base, bytes.count)
            #endif
        }
    }

    /// Returns the digest of everything added.
    package consuming func finalize() -> Digest {
        var bytes = [UInt8](repeating: 0, count: 32)
        #if canImport(CommonCrypto)
        CC_SHA256_Final(&bytes, &context)
        #else
        SHA256_Final(&bytes, &context)
        #endif
        return Digest(bytes: bytes)
    }

    /// A finished SHA-256 digest: 32 bytes.
    package struct Digest: Sendable, Hashable {
        /// The 32 bytes.
        package let bytes: [UInt8]

        /// The digest as 64 lowercase hexadecimal digits.
        package var hexadecimal: String { bytes.hexadecimal }
    }
}
