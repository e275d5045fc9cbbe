import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes

/// The live ``WebSocketConnector``: `URLSessionWebSocketTask` on a session of your choosing.
/// On Linux it needs FoundationNetworking's WebSocket support (libcurl built with WebSockets);
/// where that is missing, `connect` fails as the task does.
public struct URLSessionWebSocketConnector: WebSocketConnector {
    private let session: URLSession

    /// - Parameter session: the session the tasks run on (`.shared` by default).
    public init(session: URLSession = .shared) {
        self.session = session
    }

    /// Starts a `URLSessionWebSocketTask` for `request`'s URL and headers and returns at once; a
    /// failed handshake surfaces on the first send or receive.
    public func connect(_ request: HTTPRequest) async throws -> any WebSocketConnection {
        guard let url = request.url else { throw URLError(.badURL) }
        var urlRequest = URLRequest(url: url)
        for field in request.headerFields { urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName) }
        let task = session.webSocketTask(with: urlRequest)
        task.resume()
        return URLSessionWebSocket(task: task)
    }
}

/// A conversation on a `URLSessionWebSocketTask`.
struct URLSessionWebSocket: WebSocketConnection {
    let task: URLSessionWebSocketTask

    func send(_ message: WebSocketMessage.Content) async throws {
        switch message {
        case .text(let text): try await task.send(.string(text))
        case .binary(let data): try await task.send(.data(data))
        case .close(let code, let reason): try await close(code: code ?? 1000, reason: reason)
        }
    }

    func receive() async throws -> WebSocketMessage.Content {
        do {
            switch try await task.receive() {
            case .string(let text): return .text(text)
            case .data(let data): return .binary(data)
            @unknown default: return .binary(Data())
            }
        } catch {
            // A closed task fails its receive; the close it saw is the answer, once.
            guard task.closeCode != .invalid else { throw error }
            let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
            return .close(code: UInt16(task.closeCode.rawValue), reason: reason)
        }
    }

    func close(code: UInt16, reason: String) async throws {
        task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure, reason: Data(reason.utf8))
    }
}
