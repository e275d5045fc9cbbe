#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files. A server holds one descriptor a connection (two while it
/// forwards), and the common soft limit of 1,024 is reached long before memory is: raised to the
/// hard limit at start, as most servers do. Past it, ``TapedeckServer`` backs off accepting (see
/// its bind) instead of retrying `accept` in a loop.
package enum FileDescriptorLimit {
    /// Raises the soft limit to the hard one (on Darwin at most `OPEN_MAX`, which `setrlimit`
    /// requires there); returns the soft limit now in force, or nil when it cannot be read.
    @discardableResult
    package static func raiseToHardLimit() -> UInt64? {
        var limits = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limits) == 0 else { return nil }
        var wanted = limits.rlim_max
        #if canImport(Darwin)
        wanted = min(wanted, rlim_t(OPEN_MAX))
        #endif
        if limits.rlim_cur < wanted {
            var raised = limits
            raised.rlim_cur = wanted
            if setrlimit(resource, &raised) == 0 { limits = raised }
        }
        return UInt64(limits.rlim_cur)
    }
}
