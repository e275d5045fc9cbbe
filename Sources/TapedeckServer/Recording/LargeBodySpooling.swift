import TapedeckCore

/// How a forwarded answer's body is kept for the cassette once it is large: in memory up to a
/// threshold (higher for a body redaction may rewrite), then in a ``SideFileSpool`` the body is
/// appended to as it passes, so recording a download of any size holds only the pieces in flight.
struct LargeBodySpooling: Sendable {
    /// Bodies of a content type longer than this many bytes (as received) go to a spool.
    let threshold: @Sendable (_ contentType: String?) -> Int
    /// Starts a spool for a body of a content type in the cassette's bodies folder; nil when there is nowhere to put one.
    let start: @Sendable (_ contentType: String?) throws(SideFileError) -> SideFileSpool?

    /// Spools into `recorder`'s cassette's bodies folder, past its side-file threshold.
    init(recorder: Recorder) {
        threshold = { recorder.spoolingThreshold(contentType: $0) }
        start = { contentType throws(SideFileError) in try recorder.spoolForLargeBody(contentType: contentType) }
    }

    /// Spools past `threshold` with `start`.
    init(threshold: Int, start: @escaping @Sendable () throws(SideFileError) -> SideFileSpool?) {
        self.threshold = { _ in threshold }
        self.start = { _ throws(SideFileError) in try start() }
    }
}
