#!/usr/bin/env python3
"""Validate Tapedeck cassettes against schema/cassette.schema.json.

Tapedeck cassettes (SPEC.md section 1, "Cassette format, version 1") are JSON
files; this script checks them against the JSON Schema that ships with the
project, so hand-written fixtures and recorder output can be checked in CI.

Usage:
    python3 scripts/validate_cassettes.py                 # every cassettes/*.json
    python3 scripts/validate_cassettes.py a.json dir/ ... # given files; *.json in dirs
    python3 scripts/validate_cassettes.py --self-test     # check the schema itself

Directories are searched for *.json at their top level only (a cassette's
NAME.bodies/ side-file directory is not a cassette). Without arguments the
repository's cassettes/ directory, found relative to this script, is used.

Output: one line per problem, `FILE: PATH: message`, where PATH is a JSON path
such as `interactions[3].response.status` (`$` for the top level); a file that
is not valid JSON gives `FILE: line L column C: message`. A valid file prints
`ok FILE`.

Exit status: 0 when every cassette is valid, 1 when any is invalid (or the
self-test finds a broken cassette the schema accepts), 2 on bad usage, a
missing schema, or when the `jsonschema` package is missing
(`pip install jsonschema`).

Requires Python 3.11+ and the `jsonschema` package (Draft 2020-12 support).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable

SCRIPT_DIR = Path(__file__).resolve().parent
REPO_DIR = SCRIPT_DIR.parent
DEFAULT_SCHEMA = REPO_DIR / "schema" / "cassette.schema.json"
DEFAULT_CASSETTE_DIR = REPO_DIR / "cassettes"

MAX_MESSAGE = 300  # keep a huge body out of the terminal


# --------------------------------------------------------------------------
# Loading jsonschema and the schema
# --------------------------------------------------------------------------

def import_jsonschema():
    """Import jsonschema, or exit 2 with an installation hint."""
    try:
        import jsonschema  # noqa: F401
        from jsonschema import Draft202012Validator, FormatChecker  # noqa: F401
    except ImportError:
        print(
            "error: the 'jsonschema' package is not installed; "
            "run: pip install jsonschema",
            file=sys.stderr,
        )
        sys.exit(2)
    return jsonschema


_RFC3339 = re.compile(
    r"^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$"
)


def _fallback_date_time(value: Any) -> bool:
    """RFC 3339 date-time check used when rfc3339-validator is not installed."""
    if not isinstance(value, str):
        return True
    m = _RFC3339.match(value)
    if not m:
        return False
    try:
        datetime.strptime(m.group(1) + "T" + m.group(2), "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return False
    return True


def make_validator(schema_path: Path):
    jsonschema = import_jsonschema()
    from jsonschema import Draft202012Validator, FormatChecker

    try:
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        print(f"error: schema not found: {schema_path}", file=sys.stderr)
        sys.exit(2)
    except json.JSONDecodeError as e:
        print(f"error: {schema_path}: line {e.lineno} column {e.colno}: {e.msg}",
              file=sys.stderr)
        sys.exit(2)
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"error: {schema_path} is not a valid Draft 2020-12 schema: {e.message}",
              file=sys.stderr)
        sys.exit(2)

    checker = FormatChecker()
    # jsonschema only checks "date-time" when the optional rfc3339-validator
    # package is present; fall back to a strict regular expression otherwise,
    # so createdAt / recordedAt are checked either way.
    if "date-time" not in checker.checkers:
        checker.checks("date-time")(_fallback_date_time)
    return Draft202012Validator(schema, format_checker=checker), schema


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------

_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]*$")


def json_path(parts: Iterable[Any]) -> str:
    """['interactions', 3, 'response', 'status'] -> interactions[3].response.status"""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif _IDENT.match(p):
            out += ("." if out else "") + p
        else:
            out += "[" + json.dumps(p, ensure_ascii=False) + "]"
    return out or "$"


def _short(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def describe(error, schema: dict) -> str:
    """A readable message for the few cases where jsonschema's is cryptic."""
    defs = schema.get("$defs", {})
    kw = error.validator
    path = list(error.absolute_schema_path)
    if kw == "not" and "dependentSchemas" in path:
        # response.body under an interaction that has chunks.
        return "an interaction with 'chunks' must not also have response.body"
    if error.schema == defs.get("body"):
        keys = sorted(error.instance) if isinstance(error.instance, dict) else []
        if kw in ("maxProperties", "oneOf"):
            return ("a body has exactly one of 'text', 'base64', 'json', 'file' (and may be marked 'encoded'); "
                    f"found {', '.join(repr(k) for k in keys)}")
        if kw == "minProperties":
            return ("a body has exactly one of 'text', 'base64', 'json', 'file'; "
                    "leave the body out for an empty one")
    if error.schema == defs.get("chunk") and kw == "oneOf":
        return "a chunk has exactly one of 'text' or 'base64'"
    if kw == "not" and "propertyNames" in path:
        return f"hop-by-hop header {error.instance!r} must not be stored"
    if kw == "pattern" and "propertyNames" in path:
        return f"{error.instance!r} is not a valid header name (an HTTP token)"
    if kw == "pattern" and path and "file" in path:
        return (f"{_short(repr(error.instance))} is not a side-file name of the "
                "form NAME.bodies/<64 lowercase hex sha256>.bin")
    if kw == "pattern" and "base64" in path:
        return "not valid base64 (standard alphabet, padded, no line breaks)"
    if kw == "minimum" and "else" in path and 100 <= error.instance < 200:
        return (f"status {error.instance} is an interim answer, which a final one must follow: "
                "answer 200 to 599, or 101 with a WebSocket conversation")
    if kw == "const" and "then" in path:
        return f"an interaction with a WebSocket conversation has status 101, not {error.instance}"
    if kw == "const" and list(error.absolute_path) == ["version"]:
        return (f"unsupported cassette version {error.instance!r}; "
                "this schema describes version 1")
    return _short(error.message)


def validate_document(validator, schema: dict, doc: Any) -> list[tuple[str, str]]:
    """Return [(path, message)] for every schema violation in a loaded document."""
    errors = sorted(
        validator.iter_errors(doc),
        key=lambda e: ([str(p) if not isinstance(p, int) else f"{p:09d}"
                        for p in e.absolute_path], str(e.validator)),
    )
    return [(json_path(e.absolute_path), describe(e, schema)) for e in errors]


def validate_file(validator, schema: dict, path: Path) -> bool:
    name = str(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        print(f"{name}: cannot read: {e.strerror or e}")
        return False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        print(f"{name}: byte {e.start}: not valid UTF-8")
        return False
    if text.startswith("\ufeff"):
        print(f"{name}: line 1 column 1: byte order mark is not allowed")
        return False
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"{name}: line {e.lineno} column {e.colno}: {e.msg}")
        return False
    problems = validate_document(validator, schema, doc)
    for where, message in problems:
        print(f"{name}: {where}: {message}")
    if not problems:
        print(f"ok {name}")
    return not problems


def collect(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            files.extend(sorted(f for f in path.glob("*.json") if f.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            print(f"error: no such file or directory: {p}", file=sys.stderr)
            sys.exit(2)
    return files


# --------------------------------------------------------------------------
# Self-test
# --------------------------------------------------------------------------

def minimal_cassette() -> dict:
    return {
        "version": 1,
        "interactions": [
            {
                "recordedAt": "2026-11-21T10:00:00.123Z",
                "request": {"method": "GET", "url": "https://api.example.com/", "headers": {}},
                "response": {"status": 200, "headers": {}},
            }
        ],
    }


def full_cassette() -> dict:
    """A cassette that uses every feature of format version 1."""
    sha = "0" * 63 + "a"
    return {
        "version": 1,
        "meta": {"createdAt": "2026-11-21T10:00:00Z", "recordedWith": "tapedeck 0.1.0",
                 "note": "extra meta keys are allowed"},
        "interactions": [
            {
                "recordedAt": "2026-11-21T10:00:00.123Z",
                "request": {
                    "method": "POST",
                    "url": "https://api.example.com/user/login?id=666",
                    "headers": {"Content-Type": ["application/x-www-form-urlencoded; charset=utf-8"],
                                "Authorization": ["<redacted>"]},
                    "body": {"text": "id=666&name=xiaoming"},
                },
                "response": {
                    "status": 200,
                    "headers": {"Content-Type": ["application/json"],
                                "Content-Encoding": ["gzip"],
                                "Set-Cookie": ["a=1", "b=2"]},
                    "body": {"text": "{\"id\":666}"},
                },
                "timing": {"firstByteMs": 12.4, "totalMs": 15.0},
            },
            {
                "recordedAt": "2026-11-21T10:00:01.000Z",
                "request": {"method": "PUT", "url": "https://api.example.com/blob",
                            "headers": {}, "body": {"base64": "AAH+/w=="}},
                "response": {"status": 201, "headers": {}, "body": {"json": {"ok": True, "n": [1, 2]}}},
                "delayMs": 250,
            },
            {
                "recordedAt": "2026-11-21T10:00:02.000Z",
                "request": {"method": "GET", "url": "https://api.example.com/big", "headers": {}},
                "response": {"status": 200, "headers": {},
                             "body": {"file": f"example.bodies/{sha}.bin"}},
            },
            {
                "recordedAt": "2026-11-21T10:00:03.000Z",
                "request": {"method": "GET", "url": "https://api.example.com/events", "headers": {}},
                "response": {"status": 200, "headers": {"Content-Type": ["text/event-stream"]}},
                "chunks": [{"atMs": 0, "text": "data: a\n\n"}, {"atMs": 50.5, "base64": "/w=="}],
                "timing": {"firstByteMs": 1, "totalMs": 51},
            },
        ],
    }


def _broken(mutate: Callable[[dict], None], base: Callable[[], dict] = minimal_cassette) -> dict:
    doc = copy.deepcopy(base())
    mutate(doc)
    return doc


def _set(path: list, value: Any) -> Callable[[dict], None]:
    def f(doc: dict) -> None:
        target = doc
        for p in path[:-1]:
            target = target[p]
        target[path[-1]] = value
    return f


def _delete(path: list) -> Callable[[dict], None]:
    def f(doc: dict) -> None:
        target = doc
        for p in path[:-1]:
            target = target[p]
        del target[path[-1]]
    return f


I0 = ["interactions", 0]

# (description, broken document, JSON path where an error must be reported)
BROKEN_CASES: list[tuple[str, Callable[[], dict], str]] = [
    ("version 2", lambda: _broken(_set(["version"], 2)), "version"),
    ("version missing", lambda: _broken(_delete(["version"])), "$"),
    ("interactions missing", lambda: _broken(_delete(["interactions"])), "$"),
    ("interactions not an array", lambda: _broken(_set(["interactions"], {})), "interactions"),
    ("status as string \"200\"",
     lambda: _broken(_set(I0 + ["response", "status"], "200")), "interactions[0].response.status"),
    ("status 600", lambda: _broken(_set(I0 + ["response", "status"], 600)),
     "interactions[0].response.status"),
    ("status 100, an interim answer", lambda: _broken(_set(I0 + ["response", "status"], 100)),
     "interactions[0].response.status"),
    ("status 101 without a WebSocket conversation", lambda: _broken(_set(I0 + ["response", "status"], 101)),
     "interactions[0].response.status"),
    ("a WebSocket conversation after status 200",
     lambda: _broken(_set(I0 + ["websocket"], [{"from": "server", "atMs": 0, "text": "a"}])),
     "interactions[0].response.status"),
    ("body with both text and base64",
     lambda: _broken(_set(I0 + ["response", "body"], {"text": "a", "base64": "YQ=="})),
     "interactions[0].response.body"),
    ("empty body object", lambda: _broken(_set(I0 + ["request", "body"], {})),
     "interactions[0].request.body"),
    ("unknown body kind", lambda: _broken(_set(I0 + ["request", "body"], {"hex": "00"})),
     "interactions[0].request.body"),
    ("base64 body that is not base64",
     lambda: _broken(_set(I0 + ["response", "body"], {"base64": "not base64!"})),
     "interactions[0].response.body.base64"),
    ("file body with a path outside NAME.bodies/",
     lambda: _broken(_set(I0 + ["response", "body"], {"file": "../etc/passwd"})),
     "interactions[0].response.body.file"),
    ("file body with a short hash",
     lambda: _broken(_set(I0 + ["response", "body"], {"file": "example.bodies/abc.bin"})),
     "interactions[0].response.body.file"),
    ("header value not a list",
     lambda: _broken(_set(I0 + ["request", "headers"], {"Accept": "text/plain"})),
     "interactions[0].request.headers.Accept"),
    ("hop-by-hop header stored",
     lambda: _broken(_set(I0 + ["response", "headers"], {"transfer-encoding": ["chunked"]})),
     "interactions[0].response.headers"),
    ("empty method", lambda: _broken(_set(I0 + ["request", "method"], "")),
     "interactions[0].request.method"),
    ("url missing", lambda: _broken(_delete(I0 + ["request", "url"])), "interactions[0].request"),
    ("unknown key in response",
     lambda: _broken(_set(I0 + ["response", "statusText"], "OK")), "interactions[0].response"),
    ("negative timing",
     lambda: _broken(_set(I0 + ["timing"], {"firstByteMs": -1, "totalMs": 3})),
     "interactions[0].timing.firstByteMs"),
    ("negative delayMs", lambda: _broken(_set(I0 + ["delayMs"], -5)), "interactions[0].delayMs"),
    ("recordedAt not a date-time",
     lambda: _broken(_set(I0 + ["recordedAt"], "yesterday")), "interactions[0].recordedAt"),
    ("chunk with both text and base64",
     lambda: _broken(_set(I0 + ["chunks"], [{"atMs": 0, "text": "a", "base64": "YQ=="}])),
     "interactions[0].chunks[0]"),
    ("chunk without atMs",
     lambda: _broken(_set(I0 + ["chunks"], [{"text": "a"}])), "interactions[0].chunks[0]"),
    ("chunks together with a response body",
     lambda: _broken(lambda d: (_set(I0 + ["chunks"], [{"atMs": 0, "text": "a"}])(d),
                                _set(I0 + ["response", "body"], {"text": "a"})(d))),
     "interactions[0].response.body"),
    ("a json body marked encoded",
     lambda: _broken(_set(I0 + ["response", "body"], {"json": {"a": 1}, "encoded": True})),
     "interactions[0].response.body"),
    ("httpVersion 3.5", lambda: _broken(_set(I0 + ["httpVersion"], "3.5")), "interactions[0].httpVersion"),
    ("trailer value not a list",
     lambda: _broken(_set(I0 + ["response", "trailers"], {"grpc-status": "0"})),
     "interactions[0].response.trailers.grpc-status"),
    ("a gRPC message's compressed flag not a boolean",
     lambda: _broken(_set(I0 + ["response", "body"], {"grpc": [{"base64": "AA==", "compressed": 1}]})),
     "interactions[0].response.body.grpc[0].compressed"),
    ("a gRPC message at a negative time",
     lambda: _broken(_set(I0 + ["response", "body"], {"grpc": [{"base64": "AA==", "atMs": -1}]})),
     "interactions[0].response.body.grpc[0].atMs"),
    ("a WebSocket message from neither side",
     lambda: _broken(_set(I0 + ["websocket"], [{"from": "proxy", "atMs": 0, "text": "a"}])),
     "interactions[0].websocket[0].from"),
    ("a WebSocket message with both text and base64",
     lambda: _broken(_set(I0 + ["websocket"], [{"from": "client", "text": "a", "base64": "YQ=="}])),
     "interactions[0].websocket[0]"),
    ("a WebSocket close code no close frame may carry",
     lambda: _broken(lambda d: (_set(I0 + ["response", "status"], 101)(d),
                                _set(I0 + ["websocket"], [{"from": "server", "close": 1006}])(d))),
     "interactions[0].websocket[0].close"),
    ("a WebSocket close reason over 123 characters",
     lambda: _broken(_set(I0 + ["websocket"], [{"from": "server", "close": 1000, "reason": "x" * 124}])),
     "interactions[0].websocket[0].reason"),
    ("neither interactions nor stubs", lambda: _broken(_delete(["interactions"])), "$"),
    ("a stub without a response",
     lambda: _broken(_set(["stubs"], [{"request": {"path": "/a"}}])), "stubs[0]"),
    ("a stub response with both a body and gRPC messages",
     lambda: _broken(_set(["stubs"], [{"response": {"body": {"text": "a"}, "grpc": []}}])), "stubs[0].response"),
    ("a stub response with neither status nor fault",
     lambda: _broken(_set(["stubs"], [{"response": {"headers": {}}}])), "stubs[0].response"),
    ("an unknown field in a request pattern",
     lambda: _broken(_set(["stubs"], [{"request": {"bodyContain": "x"}, "response": {"status": 200}}])),
     "stubs[0].request"),
    ("an unknown fault",
     lambda: _broken(_set(["stubs"], [{"response": {"fault": "explode"}}])), "stubs[0].response.fault"),
]


def self_test(schema_path: Path) -> int:
    validator, schema = make_validator(schema_path)
    failures = 0

    for name, make in (("minimal cassette", minimal_cassette), ("full cassette", full_cassette)):
        problems = validate_document(validator, schema, make())
        if problems:
            failures += 1
            print(f"FAIL accepts {name}: rejected with:")
            for where, message in problems:
                print(f"    {where}: {message}")
        else:
            print(f"pass accepts {name}")

    for name, make, expected_path in BROKEN_CASES:
        problems = validate_document(validator, schema, make())
        if not problems:
            failures += 1
            print(f"FAIL rejects {name}: the schema let it through")
        elif not any(where == expected_path for where, _ in problems):
            failures += 1
            print(f"FAIL rejects {name}: rejected, but not at {expected_path}:")
            for where, message in problems:
                print(f"    {where}: {message}")
        else:
            message = next(m for w, m in problems if w == expected_path)
            print(f"pass rejects {name}: {expected_path}: {message}")

    total = 2 + len(BROKEN_CASES)
    print(f"self-test: {total - failures}/{total} passed")
    return 1 if failures else 0


# --------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Validate Tapedeck cassettes (format version 1) against the JSON Schema.")
    parser.add_argument("paths", nargs="*", metavar="FILE_OR_DIR",
                        help=f"cassette files, or directories whose *.json are checked "
                             f"(default: {DEFAULT_CASSETTE_DIR})")
    parser.add_argument("--schema", type=Path, default=DEFAULT_SCHEMA,
                        help=f"schema file (default: {DEFAULT_SCHEMA})")
    parser.add_argument("--self-test", action="store_true",
                        help="check that the schema accepts valid and rejects broken cassettes")
    args = parser.parse_args(argv)

    if args.self_test:
        return self_test(args.schema)

    validator, schema = make_validator(args.schema)
    files = collect(args.paths or [str(DEFAULT_CASSETTE_DIR)])
    if not files:
        print("no cassettes (*.json) found", file=sys.stderr)
        return 0
    all_valid = True
    for f in files:
        all_valid &= validate_file(validator, schema, f)
    return 0 if all_valid else 1


if __name__ == "__main__":
    sys.exit(main())
