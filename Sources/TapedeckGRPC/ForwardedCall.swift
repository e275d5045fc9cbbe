import Foundation
import GRPCCore
import Tapedeck
@_spi(Internals) import TapedeckCore

/// A call ``RecordingGRPCTransport`` forwards to the live service as the client writes it: what
/// went each way, with times (each request message's from the call's start, as `tapedeck record`
/// keeps a streamed call's), recorded once the service's status came. A client that leaves
/// before the status records nothing, as through the recording proxy.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class ForwardedCall: Sendable {
    private struct Exchange {
        var metadata = Metadata()
        var messages: [GRPCMessage] = []
        var answer: GRPCAnswer
    }

    /// When the call started: the times of both sides count from here.
    private let start = ContinuousClock.now
    private let exchange: Locked<Exchange>
    private let call: ReplayedCall
    private let recorder: Recorder

    init(call: ReplayedCall, recorder: Recorder) {
        self.call = call
        self.recorder = recorder
        exchange = Locked(Exchange(answer: GRPCAnswer(start: start)))
    }

    /// Notes a part the client wrote; returns it as the live service gets it (secrets' values in
    /// the metadata, as ``Recorder/requestForUpstream(_:)`` gives them).
    func sent<Bytes: GRPCContiguousBytes>(_ part: RPCRequestPart<Bytes>) -> RPCRequestPart<Bytes> {
        switch part {
        case .metadata(let metadata):
            exchange.withLock { $0.metadata.add(contentsOf: metadata) }
            return .metadata(Metadata(headers: recorder.requestForUpstream(call.cassetteRequest(metadata: metadata, messages: [])).headers))
        case .message(let bytes):
            let atMs = start.duration(to: .now).recordedMilliseconds
            exchange.withLock { $0.messages.append(GRPCMessage(bytes: bytes.withUnsafeBytes { Data($0) }, compressed: false, atMs: atMs)) }
            return part
        }
    }

    /// Notes a part the service answered; records the call once it is the status.
    func received<Bytes: GRPCContiguousBytes>(_ part: RPCResponsePart<Bytes>) throws {
        let interaction = exchange.withLock { exchange in
            exchange.answer.take(part) { [call] in
                var request = call.cassetteRequest(metadata: exchange.metadata, messages: exchange.messages)
                request.body.messageTimes = GRPCCall.times(of: exchange.messages)
                return request
            }
        }
        if let interaction { try recorder.record(interaction) }
    }
}

/// The client's writer of a forwarded call: each part goes to the live stream as it is written,
/// noted by the ``ForwardedCall``.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct ForwardingWriter<Bytes: GRPCContiguousBytes & Sendable>: ClosableRPCWriterProtocol {
    let live: RPCWriter<RPCRequestPart<Bytes>>.Closable
    let call: ForwardedCall

    func write(_ element: RPCRequestPart<Bytes>) async throws {
        try await live.write(call.sent(element))
    }

    func write(contentsOf elements: some Sequence<RPCRequestPart<Bytes>>) async throws {
        for element in elements { try await write(element) }
    }

    func finish() async {
        await live.finish()
    }

    func finish(throwing error: any Error) async {
        await live.finish(throwing: error)
    }
}
