#!/usr/bin/env python3
"""Splits a server's CPU profile by the Swift module whose code spent it, per request.

A flat profile of a Swift server is mostly `swift_retain`, `swift_release` and `malloc`; an
inclusive one (`perf report --children`) counts a whole request inside whichever frame first
delivered it (on HTTP/2, the stream channel's activation). This reads every sampled call chain
and charges the sample to the innermost frame that belongs to a named module, so the runtime's
work goes to the code that asked for it: "how many microseconds a request does Tapedeck's own
code cost, and how many SwiftNIO's". A frame is named by its mangled symbol's first module, so an
extension Tapedeck writes on a SwiftNIO type counts for SwiftNIO (a small share: a few helpers).

Usage (127.0.0.1 only; the server under load, e.g. `wrk` or `h2load` against `tapedeck replay`):
    perf record -F 2000 -g -p PID -o perf.data -- sleep 8      # while the load runs
    perf script -i perf.data -F ip,sym | scripts/bench/profile_by_module.py REQUESTS 2000 [--functions N]
REQUESTS is how many requests the load completed while perf recorded, 2000 the sampling rate
(-F). With --functions N it also lists the N Tapedeck functions (and swift-http-types') that
cost the most, by the same charging. `--self-test` checks the charging on made-up samples.
"""
import argparse
import collections
import subprocess
import sys

# Mangled-name prefixes of the modules a request passes through ($s, then the module name's length and name).
MODULES = ["TapedeckServer", "TapedeckCore", "TapedeckNIO", "HTTPTypes", "NIOHTTP2", "NIOHPACK", "NIOHTTP1",
           "NIOCore", "NIOPosix", "NIOConcurrencyHelpers", "Foundation", "FoundationEssentials"]
PREFIXES = [(f"$s{len(name)}{name}", name) for name in MODULES]
TAPEDECK = {"TapedeckServer", "TapedeckCore", "TapedeckNIO", "HTTPTypes"}


def module_of(symbol):
    for prefix, name in PREFIXES:
        if symbol.startswith(prefix):
            return name
    return None


def call_chains(lines):
    """Yields each sample's frames, innermost first, from `perf script -F ip,sym` output."""
    chain = []
    for line in lines:
        if not line.strip():
            if chain:
                yield chain
            chain = []
            continue
        parts = line.split(None, 1)
        chain.append(parts[1].strip() if len(parts) > 1 else "?")
    if chain:
        yield chain


def charge(chains):
    """Counts each chain's sample for its owning module, and for Tapedeck's own functions."""
    modules = collections.Counter()
    functions = collections.Counter()
    for chain in chains:
        owner = next((module for module in map(module_of, chain) if module), None)
        modules[owner or "other (C library, kernel)"] += 1
        if owner in TAPEDECK:
            functions[next(frame for frame in chain if module_of(frame) == owner)] += 1
    return modules, functions


def self_test():
    """The charging on three made-up samples: the runtime's work goes to its innermost named caller."""
    samples = """
\t  1000 swift_retain
\t  2000 $s12TapedeckCore6PlayerC4playyyF
\t  3000 $s14TapedeckServer15ExchangeHandlerC11channelReadyyF

\t  1000 malloc
\t  2000 $s8NIOHTTP210HTTP2FrameV4copyyyF
\t  3000 $s12TapedeckCore6PlayerC4playyyF

\t  1000 [k] tcp_sendmsg
"""
    modules, functions = charge(call_chains(samples.splitlines()))
    expected = {"TapedeckCore": 1, "NIOHTTP2": 1, "other (C library, kernel)": 1}
    if dict(modules) != expected:
        sys.exit(f"self-test failed: modules {dict(modules)}, expected {expected}")
    if dict(functions) != {"$s12TapedeckCore6PlayerC4playyyF": 1}:
        sys.exit(f"self-test failed: functions {dict(functions)}")
    print("profile_by_module.py: self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("requests", type=float, help="requests completed while perf recorded")
    parser.add_argument("frequency", type=float, help="perf's sampling rate (-F), samples a CPU-second")
    parser.add_argument("--functions", type=int, default=0, help="also list this many costliest Tapedeck functions")
    arguments = parser.parse_args()
    if arguments.requests <= 0 or arguments.frequency <= 0:
        parser.error("REQUESTS and the sampling rate must be above zero")

    modules, functions = charge(call_chains(sys.stdin))
    if not modules:
        sys.exit("no samples on standard input: pipe in `perf script -F ip,sym` of a `perf record -g` profile")
    microseconds = 1e6 / arguments.frequency / arguments.requests   # per sample, per request
    total = sum(modules.values())
    print(f"CPU µs per request: {total * microseconds:.1f} in all, "
          f"{sum(modules[name] for name in TAPEDECK) * microseconds:.1f} in Tapedeck's code (with swift-http-types)")
    for name, count in modules.most_common():
        print(f"  {count * microseconds:6.2f}  {100 * count / total:5.1f} %  {name}")
    if arguments.functions:
        top = functions.most_common(arguments.functions)
        names = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(symbol for symbol, _ in top),
                               capture_output=True, text=True, check=True).stdout.splitlines()
        print("costliest Tapedeck functions, µs per request:")
        for (_, count), name in zip(top, names):
            print(f"  {count * microseconds:5.2f}  {name[:140]}")


if __name__ == "__main__":
    main()
