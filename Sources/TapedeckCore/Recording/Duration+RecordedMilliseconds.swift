/// How the in-process recorders write a measured time.
extension Duration {
    /// Milliseconds, to a tenth, as `timing` holds them.
    package var recordedMilliseconds: Double {
        let milliseconds = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
        return (milliseconds * 10).rounded() / 10
    }
}
