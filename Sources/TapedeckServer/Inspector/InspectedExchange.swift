import Foundation
import TapedeckCore

/// One exchange in the inspector's list: the journal entry, with an id to open it by and the
/// status answered. Encoded flat: the journal entry's fields, `id` and `status`.
package struct ExchangeSummary: Sendable, Hashable, Codable {
    /// The id `GET /__tapedeck/exchanges/ID` opens it by, increasing from 1.
    package var id: Int
    /// What the journal says of it (outcome `forwarded` for what the recording proxy passed on unrecorded).
    package var entry: JournalEntry
    /// The status answered, when there was an answer.
    package var status: Int?

    /// Creates a summary.
    package init(id: Int, entry: JournalEntry, status: Int?) {
        self.id = id
        self.entry = entry
        self.status = status
    }

    private enum CodingKeys: String, CodingKey { case id, status }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        status = try container.decodeIfPresent(Int.self, forKey: .status)
        entry = try JournalEntry(from: decoder)
    }

    package func encode(to encoder: any Encoder) throws {
        try entry.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(status, forKey: .status)
    }
}

/// One exchange opened in the inspector: its summary, the request and response as kept
/// (redacted, bodies bounded), and for a request nothing served, the diagnosis with the
/// recorded requests it names. Encoded flat: the summary's fields beside these.
package struct InspectedExchange: Sendable, Hashable, Codable {
    /// The list entry.
    package var summary: ExchangeSummary
    /// The request, redacted.
    package var request: InspectedMessage
    /// The response, if one was sent.
    package var response: InspectedMessage?
    /// Why nothing was served, for `unmatched` and `exhausted`.
    package var diagnosis: MatchDiagnosis?
    /// The recorded requests of ``diagnosis``'s nearest candidates, in the same order (nil where
    /// the recording is no longer at hand); filled in when the exchange is opened.
    package var nearestRequests: [InspectedMessage?]?
    /// The WebSocket conversation after the upgrade, once its connection ended.
    package var conversation: InspectedConversation?

    /// Creates an exchange.
    package init(summary: ExchangeSummary, request: InspectedMessage, response: InspectedMessage?, diagnosis: MatchDiagnosis?,
                 conversation: InspectedConversation? = nil) {
        self.summary = summary
        self.conversation = conversation
        self.request = request
        self.response = response
        self.diagnosis = diagnosis
    }

    private enum CodingKeys: String, CodingKey { case request, response, diagnosis, nearestRequests, websocket }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        summary = try ExchangeSummary(from: decoder)
        request = try container.decode(InspectedMessage.self, forKey: .request)
        response = try container.decodeIfPresent(InspectedMessage.self, forKey: .response)
        diagnosis = try container.decodeIfPresent(MatchDiagnosis.self, forKey: .diagnosis)
        nearestRequests = try container.decodeIfPresent([InspectedMessage?].self, forKey: .nearestRequests)
        conversation = try container.decodeIfPresent(InspectedConversation.self, forKey: .websocket)
    }

    package func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(request, forKey: .request)
        try container.encodeIfPresent(response, forKey: .response)
        try container.encodeIfPresent(diagnosis, forKey: .diagnosis)
        try container.encodeIfPresent(nearestRequests, forKey: .nearestRequests)
        try container.encodeIfPresent(conversation, forKey: .websocket)
    }
}
