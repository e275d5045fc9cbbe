#!/usr/bin/env python3
"""Peer baseline for the connector benchmark: vcrpy replaying through `requests`.

Records 10 GETs from a local example upstream on 127.0.0.1 into a vcrpy cassette, stops
the upstream, then replays them N times (default 2,000) and prints microseconds per request:

    python3 scripts/bench/vcrpy_replay.py [N]
"""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import requests  # noqa: E402
import vcr  # noqa: E402

from example_upstream import start_in_thread  # noqa: E402


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    folder = tempfile.mkdtemp(prefix="tapedeck-vcrpy-")
    cassette = os.path.join(folder, "bench.yaml")
    server, base = start_in_thread(0, quiet=True)
    urls = [f"{base}/plaintext?name=user{number}" for number in range(10)]
    with vcr.use_cassette(cassette, record_mode="once"):
        for url in urls:
            requests.get(url, timeout=5)
    server.shutdown()
    session = requests.Session()
    with vcr.use_cassette(cassette, record_mode="none", allow_playback_repeats=True):
        for url in urls:
            session.get(url)
        start = time.perf_counter()
        for number in range(count):
            session.get(urls[number % len(urls)])
        elapsed = time.perf_counter() - start
    print(f"{elapsed / count * 1e6:.1f}")


if __name__ == "__main__":
    main()
