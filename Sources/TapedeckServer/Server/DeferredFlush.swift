import NIOCore

/// Flushes channels once the event loop has handled its current round of I/O instead of at
/// once, so the writes of every connection served in one round leave together.
///
/// The peers on the other side (the upstream server, the clients) then wake once for many
/// messages rather than once for each, and each of their wake-ups finds more to do: on a busy
/// machine, waking processes is much of what a proxied exchange costs. The delay is nothing
/// but the rest of the round. Used on one event loop only, with channels of that loop.
final class DeferredFlush {
    private var due: [any Channel] = []
    /// The channels of the round being flushed: the two arrays trade places each round, so
    /// neither is reallocated (a copy of `due` emptied in place had cost an allocation a round).
    private var flushing: [any Channel] = []

    /// Flushes `channel` at the end of the current round; call on its event loop.
    func flush(_ channel: any Channel) {
        if due.isEmpty {
            channel.eventLoop.assumeIsolated().execute { [self] in
                // A flush may ask for another; that one waits for the next round, in `due`.
                swap(&due, &flushing)
                for channel in flushing { channel.flush() }
                flushing.removeAll(keepingCapacity: true)
            }
        }
        if !due.contains(where: { $0 === channel }) { due.append(channel) }
    }
}
