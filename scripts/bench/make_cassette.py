#!/usr/bin/env python3
"""Writes a replay benchmark cassette of N interactions: GET http://bench.test/items/<i>,
each answering a small JSON body (the same body the bare server answers)."""
import json
import sys

BODY = '{"id":42,"name":"tapedeck","tags":["replay","benchmark"],"active":true}'


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit("usage: make_cassette.py COUNT OUT.json")
    count, out = int(sys.argv[1]), sys.argv[2]
    interactions = [
        {
            "recordedAt": "2026-11-21T10:00:00.000Z",
            "request": {"method": "GET", "url": f"http://bench.test/items/{i}",
                        "headers": {"Accept": ["application/json"]}},
            "response": {"status": 200, "headers": {"Content-Type": ["application/json"]}, "body": {"text": BODY}},
            "timing": {"firstByteMs": 1.0, "totalMs": 1.2},
        }
        for i in range(count)
    ]
    with open(out, "w", encoding="utf-8") as handle:
        json.dump({"version": 1, "meta": {"recordedWith": "bench"}, "interactions": interactions}, handle, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
