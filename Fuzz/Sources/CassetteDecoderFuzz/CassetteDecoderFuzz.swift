import Foundation
import Tapedeck

/// libFuzzer entry: decodes the input as a cassette. Errors are expected and typed; a crash,
/// a hang, or a cassette that does not survive encode → decode unchanged in size is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func cassetteDecoderFuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let codec = CassetteCodec(sideFileThreshold: .max)  // every body inline: no folder needed
    let cassette: Cassette
    do {
        cassette = try codec.decode(data)
    } catch {
        _ = error.description  // the message must be printable for any input
        return 0
    }
    let encoded: EncodedCassette
    do {
        encoded = try codec.encode(cassette)
    } catch {
        fatalError("a decoded cassette does not encode: \(error)")
    }
    do {
        let again = try codec.decode(encoded.bytes)
        if again.interactions.count != cassette.interactions.count {
            fatalError("round trip changed the interaction count: \(cassette.interactions.count) -> \(again.interactions.count)")
        }
    } catch {
        fatalError("a cassette Tapedeck wrote does not decode: \(error)")
    }
    return 0
}
