import TapedeckCore

/// A request body spooled as it arrived (``SpooledBody``), on its way into a cassette: copied
/// into the cassette's bodies folder through the recorder's spool, which replaces the secrets'
/// values and redacts it piece by piece as it does a large answer's body. It is kept as received,
/// in its `Content-Encoding` if it has one, as replay compares it (by its SHA-256).
struct RecordedUpload: Sendable {
    let body: SpooledBody
    let spooling: LargeBodySpooling

    /// The body as the cassette keeps it; off the event loop (it reads the whole file).
    func install(as request: CassetteRequest) throws(SideFileError) -> Body {
        let contentType = request.headers["Content-Type"]
        guard let spool = try spooling.start(contentType) else { return Body(file: body.file) }
        try body.file.read { piece in try spool.append(piece) }
        var stored = try spool.install(contentEncoding: nil)
        stored.isEncoded = request.body.isEncoded
        return stored
    }
}
