import Foundation
import TapedeckCore

/// One interaction in a line: what `tapedeck inspect` prints, and its `--json` form.
package struct InteractionSummary: Sendable, Hashable, Codable {
    /// The position in the cassette.
    package var index: Int
    /// The request method.
    package var method: String
    /// The request URL as recorded.
    package var url: String
    /// The response status.
    package var status: Int
    /// The request body size in bytes.
    package var requestBytes: Int
    /// The response body size in bytes, decoded (chunks joined).
    package var responseBytes: Int
    /// The response Content-Type, if any.
    package var contentType: String?
    /// The number of stream chunks, when the response is streamed.
    package var chunks: Int?
    /// Time to the first response byte, when recorded.
    package var firstByteMs: Double?
    /// Time to the last response byte, when recorded.
    package var totalMs: Double?
    /// A hand-set delay, when present.
    package var delayMs: Double?
    /// The HTTP version it was recorded over, when known.
    package var httpVersion: String?
    /// The names of the response's trailers, when it had any.
    package var trailers: [String]?
    /// A gRPC call's request messages as JSON, when a descriptor set reads them.
    package var requestMessages: JSONValue?
    /// A gRPC call's response messages as JSON, when a descriptor set reads them.
    package var responseMessages: JSONValue?
    /// The WebSocket conversation after the upgrade, when the interaction holds one.
    package var websocket: ConversationSummary?

    /// Summarises an interaction at a position; a gRPC call's messages as JSON with `schema`.
    package init(index: Int, interaction: Interaction, schema: ProtoSchema? = nil) {
        self.index = index
        method = interaction.request.method
        url = interaction.request.url
        status = interaction.response.status
        // Counted without reading side files.
        requestBytes = interaction.request.body.count
        responseBytes = interaction.chunks == nil ? interaction.response.body.count : interaction.responseBodyData.count
        contentType = interaction.response.headers["Content-Type"]
        chunks = interaction.chunks?.count
        firstByteMs = interaction.timing?.firstByteMs
        totalMs = interaction.timing?.totalMs
        delayMs = interaction.delayMs
        httpVersion = interaction.httpVersion
        trailers = interaction.response.trailers.map { $0.fields.map(\.name) }
        websocket = interaction.websocket.map(ConversationSummary.init)
        if let schema, GRPCCall.isGRPC(interaction.request) {
            let path = interaction.request.target.path
            requestMessages = schema.json(grpcBody: interaction.request.body.data, path: path, isRequest: true)
            responseMessages = schema.json(grpcBody: interaction.responseBodyData, path: path, isRequest: false)
        }
    }

    /// Summaries of every interaction of a cassette, in order.
    package static func all(in cassette: Cassette, schema: ProtoSchema? = nil) -> [InteractionSummary] {
        cassette.interactions.enumerated().map { InteractionSummary(index: $0.offset, interaction: $0.element, schema: schema) }
    }

    /// The line `tapedeck inspect` prints, such as `3  POST http://h/upload  200  req 512 B  resp 158 B  json  2.4/8.4 ms`,
    /// followed by a gRPC call's messages or a WebSocket conversation's, one per line.
    package var line: String {
        var parts = ["\(index)", "\(method) \(url)", "\(status)", "req \(Self.size(requestBytes))", "resp \(Self.size(responseBytes))"]
        if let contentType {
            parts.append(contentType.split(separator: ";").first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? contentType)
        }
        if let chunks { parts.append("\(chunks) chunks") }
        if let firstByteMs, let totalMs {
            parts.append("\(Self.milliseconds(firstByteMs))/\(Self.milliseconds(totalMs)) ms")
        } else {
            parts.append("no timing")
        }
        if let delayMs { parts.append("delay \(Self.milliseconds(delayMs)) ms") }
        if let httpVersion { parts.append("HTTP/\(httpVersion)") }
        if let trailers { parts.append("trailers \(trailers.joined(separator: ","))") }
        if let websocket {
            parts.append("websocket \(websocket.messages) message\(websocket.messages == 1 ? "" : "s") \(Self.size(websocket.bytes))")
        }
        var line = parts.joined(separator: "  ")
        for (label, messages) in [("request ", requestMessages), ("response", responseMessages)] {
            if let messages { line += "\n    \(label) \(String(decoding: messages.compactData, as: UTF8.self))" }
        }
        for message in websocket?.lines(milliseconds: Self.milliseconds) ?? [] { line += "\n" + message }
        return line
    }

    private static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1 << 20 { return String(format: "%.1f KiB", Double(bytes) / 1024) }
        return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
    }

    private static func milliseconds(_ value: Double) -> String {
        // Whole numbers as such; past 2^53 a Double holds whole numbers only, and one past Int's range would trap.
        value == value.rounded() && abs(value) < 0x1p53 ? String(Int(value)) : String(format: "%.1f", value)
    }
}
