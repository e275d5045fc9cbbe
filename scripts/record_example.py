#!/usr/bin/env python3
"""Record cassettes/example.json from scripts/example_upstream.py.

This is a tiny stand-in for `tapedeck record`, written with the standard
library only, so the project has a realistic example cassette (SPEC.md
section 1, format version 1) before the Swift recorder exists and
independently of it. It starts the example upstream in-process on a free
127.0.0.1 port, sends one request to each of its endpoints with
urllib.request, and writes what went over the wire:

  * headers as sent / received (name -> list of values), minus hop-by-hop
    headers and the response's Date and Server (they change every run);
  * bodies as {"text": ...} when valid UTF-8, {"base64": ...} otherwise,
    absent when empty; a gzip or deflate body is stored decoded;
  * timing.firstByteMs / timing.totalMs from sending the request to the
    response head / to the last body byte;
  * the text/event-stream response as "chunks" instead of a body;
  * the default redactions of SPEC.md section 7 (the /postBodyData request
    carries an Authorization header to show it).

Usage:
    python3 scripts/record_example.py [-o cassettes/example.json]
    python3 scripts/validate_cassettes.py cassettes/example.json

Only 127.0.0.1 is contacted; proxy environment variables are ignored.
"""

from __future__ import annotations

import argparse
import base64
import functools
import gzip
import http.client
import json
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zlib
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import unquote_plus, urlsplit, urlunsplit

SCRIPT_DIR = Path(__file__).resolve().parent
REPO_DIR = SCRIPT_DIR.parent
sys.path.insert(0, str(SCRIPT_DIR))
sys.dont_write_bytecode = True  # no __pycache__ in scripts/
import example_upstream  # noqa: E402  (sibling script, imported to run in-process)

DEFAULT_OUTPUT = REPO_DIR / "cassettes" / "example.json"

# The upstream listens on a random free port, so the real authority
# (http://127.0.0.1:PORT) would change the cassette on every run. URLs and the
# request Host header are rewritten to this fixed, never-resolvable origin.
RECORDED_ORIGIN = "http://api.example.test"
RECORDED_HOST = "api.example.test"

USER_AGENT = "tapedeck-example/1.0"  # fixed, so the Python version does not leak in
UPLOAD_BOUNDARY = "----TapedeckExampleBoundary7MA4YWxkTrZu0gW"

# SPEC.md section 1: hop-by-hop headers are not stored.
HOP_BY_HOP = {"connection", "keep-alive", "te", "trailer", "upgrade", "transfer-encoding"}
# Response headers that differ on every run.
VOLATILE_RESPONSE = {"date", "server"}

# SPEC.md section 7: default redactions.
REDACTED = "<redacted>"
REDACT_REQUEST_HEADERS = {"authorization", "proxy-authorization", "cookie", "x-api-key"}
REDACT_RESPONSE_HEADERS = {"set-cookie"}
REDACT_QUERY = {"access_token", "api_key", "apikey", "client_secret", "password", "token"}
REDACT_JSON_FIELDS = {"password", "client_secret", "access_token", "refresh_token", "id_token"}


# --------------------------------------------------------------------------
# Capturing what urllib really sends
# --------------------------------------------------------------------------

class Capture:
    """What one request put on the wire, and when."""

    def __init__(self) -> None:
        self.headers: list[tuple[str, str]] = []
        self.sent_at: float | None = None   # request line, headers and body written
        self.head_at: float | None = None   # status line and headers parsed


class CapturingConnection(http.client.HTTPConnection):
    """HTTPConnection that records the header lines it writes and the timings."""

    def __init__(self, *args, capture: Capture, **kwargs):
        super().__init__(*args, **kwargs)
        self._capture = capture

    def putheader(self, header, *values):
        name = header.decode("latin-1") if isinstance(header, bytes) else str(header)
        text = ", ".join(v.decode("latin-1") if isinstance(v, bytes) else str(v) for v in values)
        self._capture.headers.append((name, text))
        super().putheader(header, *values)

    def endheaders(self, *args, **kwargs):
        # http.client sends the request body from inside endheaders(), so when
        # this returns the whole request has been written.
        super().endheaders(*args, **kwargs)
        self._capture.sent_at = time.perf_counter()

    def getresponse(self):
        response = super().getresponse()  # returns once status line + headers are read
        self._capture.head_at = time.perf_counter()
        return response


class CapturingHTTPHandler(urllib.request.HTTPHandler):
    def __init__(self) -> None:
        super().__init__()
        self.capture = Capture()

    def http_open(self, req):
        self.capture = Capture()
        return self.do_open(functools.partial(CapturingConnection, capture=self.capture), req)


# --------------------------------------------------------------------------
# Turning bytes into cassette values
# --------------------------------------------------------------------------

def utc_now() -> str:
    """ISO-8601 UTC with milliseconds and Z, e.g. 2026-11-21T10:00:00.123Z."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def group_headers(pairs, drop: set[str]) -> dict[str, list[str]]:
    """[(name, value)] -> {name: [values]}; names compare case-insensitively,
    the first spelling seen is kept; hop-by-hop, Proxy-* and `drop` are left out."""
    out: dict[str, list[str]] = {}
    spelling: dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        if key in HOP_BY_HOP or key.startswith("proxy-") or key in drop:
            continue
        spelling.setdefault(key, name)
        out.setdefault(spelling[key], []).append(value)
    return out


def header_value(headers: dict[str, list[str]], name: str) -> str | None:
    for key, values in headers.items():
        if key.lower() == name.lower():
            return values[0]
    return None


def body_value(data: bytes) -> dict | None:
    """Absent when empty; text when valid UTF-8; base64 otherwise."""
    if not data:
        return None
    try:
        return {"text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def decode_content(data: bytes, encoding: str | None) -> tuple[bytes, bool]:
    """Undo Content-Encoding gzip/deflate; other encodings are kept as raw bytes."""
    enc = (encoding or "").strip().lower()
    if not data:
        return data, False
    if enc in ("gzip", "x-gzip"):
        return gzip.decompress(data), True
    if enc == "deflate":
        try:
            return zlib.decompress(data), True  # zlib-wrapped, as the RFC says
        except zlib.error:
            return zlib.decompress(data, -zlib.MAX_WBITS), True  # raw deflate, as some servers send
    return data, False


# --------------------------------------------------------------------------
# Redaction (SPEC.md section 7), scoped to headers, parameters and JSON keys
# --------------------------------------------------------------------------

def redact_headers(headers: dict[str, list[str]], names: set[str]) -> dict[str, list[str]]:
    return {k: ([REDACTED] * len(v) if k.lower() in names else v) for k, v in headers.items()}


def redact_url(url: str) -> str:
    """Replace the values of sensitive query parameters; other pairs keep their exact text.
    The replacement is percent-encoded, so it decodes to `<redacted>`."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    pairs = []
    for pair in parts.query.split("&"):
        name, sep, _ = pair.partition("=")
        if sep and unquote_plus(name).lower() in REDACT_QUERY:
            pair = name + "=" + "%3Credacted%3E"
        pairs.append(pair)
    return urlunsplit(parts._replace(query="&".join(pairs)))


def _redact_json_value(value):
    changed = False
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in REDACT_JSON_FIELDS:
                out[k] = REDACTED
                changed = changed or v != REDACTED
            else:
                out[k], c = _redact_json_value(v)
                changed = changed or c
        return out, changed
    if isinstance(value, list):
        items = [_redact_json_value(v) for v in value]
        return [v for v, _ in items], any(c for _, c in items)
    return value, False


def is_json_type(content_type: str | None) -> bool:
    media = (content_type or "").split(";")[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def redact_json_body(data: bytes, content_type: str | None) -> bytes:
    """Redact sensitive keys at any depth of a JSON body. The original bytes are
    kept unless something was redacted; then the body is re-serialized compactly."""
    if not data or not is_json_type(content_type):
        return data
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return data
    redacted, changed = _redact_json_value(value)
    if not changed:
        return data
    return json.dumps(redacted, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# --------------------------------------------------------------------------
# One exchange
# --------------------------------------------------------------------------

def ms(seconds: float) -> float:
    return round(seconds * 1000.0, 1)


def read_event_stream(response, head_at: float) -> list[dict]:
    """Read a text/event-stream until EOF; one chunk per event (up to its blank
    line), stamped with its arrival in whole ms after the response head."""
    chunks: list[dict] = []
    pending = b""
    while True:
        line = response.readline()
        if not line:
            break
        pending += line
        if line in (b"\n", b"\r\n"):
            chunks.append({"atMs": round((time.perf_counter() - head_at) * 1000.0),
                           **body_value(pending)})
            pending = b""
    if pending:  # a last piece without its blank line
        chunks.append({"atMs": round((time.perf_counter() - head_at) * 1000.0),
                       **body_value(pending)})
    return chunks


def record_exchange(opener, handler: CapturingHTTPHandler, base_url: str, method: str,
                    path: str, headers: dict[str, str] | None = None,
                    body: bytes | None = None, stream: bool = False) -> dict:
    recorded_at = utc_now()
    request = urllib.request.Request(base_url + path, data=body, method=method,
                                     headers=dict(headers or {}))
    try:
        response = opener.open(request, timeout=30)
    except urllib.error.HTTPError as error:  # 4xx/5xx: still a response to record
        response = error
    capture = handler.capture
    chunks = None
    with response:
        if stream:
            chunks = read_event_stream(response, capture.head_at)
            raw = b""
        else:
            raw = response.read()
        done_at = time.perf_counter()
        status = response.code
        received = list(response.headers.items())

    # ---- request ----
    request_headers = group_headers(capture.headers, drop=set())
    for name in list(request_headers):
        if name.lower() == "host":
            request_headers[name] = [RECORDED_HOST]  # see RECORDED_ORIGIN
    request_headers = redact_headers(request_headers, REDACT_REQUEST_HEADERS)
    recorded_request = {
        "method": method,
        "url": redact_url(RECORDED_ORIGIN + path),
        "headers": request_headers,
    }
    request_body = redact_json_body(body or b"", header_value(request_headers, "Content-Type"))
    if body_value(request_body):
        recorded_request["body"] = body_value(request_body)

    # ---- response ----
    response_headers = group_headers(received, drop=VOLATILE_RESPONSE)
    data, decoded = decode_content(raw, header_value(response_headers, "Content-Encoding"))
    if decoded:
        # The body is stored decoded (SPEC.md section 1) and Content-Encoding is
        # kept; the upstream's Content-Length counted the compressed bytes, so it
        # is dropped rather than left wrong: replay re-encodes and sets its own.
        response_headers = {k: v for k, v in response_headers.items()
                            if k.lower() != "content-length"}
    response_headers = redact_headers(response_headers, REDACT_RESPONSE_HEADERS)
    data = redact_json_body(data, header_value(response_headers, "Content-Type"))
    recorded_response: dict = {"status": status, "headers": response_headers}
    if body_value(data):
        recorded_response["body"] = body_value(data)

    interaction = {
        "recordedAt": recorded_at,
        "request": recorded_request,
        "response": recorded_response,
        "timing": {"firstByteMs": ms(capture.head_at - capture.sent_at),
                   "totalMs": ms(done_at - capture.sent_at)},
    }
    if chunks is not None:
        interaction["chunks"] = chunks
    return interaction


def multipart_body() -> tuple[str, bytes]:
    """A multipart/form-data body with one text field and two files, fixed boundary."""
    parts = [
        ('form-data; name="description"', None, b"Two example files"),
        ('form-data; name="files"; filename="notes.txt"', "text/plain",
         b"first line\nsecond line\n"),
        ('form-data; name="files"; filename="data.bin"', "application/octet-stream",
         bytes(range(0, 256, 17))),  # 00 11 22 ... ff: not UTF-8, so stored as base64
    ]
    out = bytearray()
    for disposition, content_type, content in parts:
        out += f"--{UPLOAD_BOUNDARY}\r\n".encode()
        out += f"Content-Disposition: {disposition}\r\n".encode()
        if content_type:
            out += f"Content-Type: {content_type}\r\n".encode()
        out += b"\r\n" + content + b"\r\n"
    out += f"--{UPLOAD_BOUNDARY}--\r\n".encode()
    return f"multipart/form-data; boundary={UPLOAD_BOUNDARY}", bytes(out)


# The requests, in cassette order: (method, path, headers, body, stream, expected status)
def requests_to_record() -> list[tuple]:
    upload_type, upload_body = multipart_body()
    return [
        ("GET", "/plaintext?name=Shawn", {"Accept": "text/plain"}, None, False, 200),
        ("POST", "/postName",
         {"Accept": "application/json",
          "Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
         b"name=Shawn&sex=1", False, 200),
        ("POST", "/postBodyData",
         {"Accept": "application/json", "Content-Type": "application/json",
          "Authorization": "Bearer example-secret-token"},  # recorded as <redacted>
         b'{"user":{"name":"Shawn","tags":["swift","http"]},"count":3,"active":true}',
         False, 200),
        ("POST", "/upload", {"Accept": "application/json", "Content-Type": upload_type},
         upload_body, False, 200),
        ("GET", "/image.png", {"Accept": "image/png"}, None, False, 200),
        ("GET", "/gzip-json", {"Accept": "application/json", "Accept-Encoding": "gzip"},
         None, False, 200),
        ("GET", "/users?team=empty", {"Accept": "application/json"}, None, False, 404),
        ("GET", "/events", {"Accept": "text/event-stream"}, None, True, 200),
    ]


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates the file 0600; give it the usual mode for a checked-in file.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Record the example cassette.")
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT,
                        help=f"cassette to write (default: {DEFAULT_OUTPUT})")
    args = parser.parse_args(argv)

    created_at = utc_now()
    server, base_url = example_upstream.start_in_thread(port=0, quiet=True)
    handler = CapturingHTTPHandler()
    # ProxyHandler({}) ignores HTTP_PROXY & co: only 127.0.0.1 is ever contacted.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), handler)
    opener.addheaders = [("User-Agent", USER_AGENT)]

    interactions = []
    failed = False
    try:
        for index, (method, path, headers, body, stream, expected) in enumerate(requests_to_record()):
            interaction = record_exchange(opener, handler, base_url, method, path,
                                          headers, body, stream)
            status = interaction["response"]["status"]
            mark = "" if status == expected else f"  (expected {expected})"
            failed |= status != expected
            print(f"{index:2d} {method:4s} {path:22s} {status}"
                  f"  {interaction['timing']['totalMs']:7.1f} ms{mark}")
            interactions.append(interaction)
    finally:
        server.shutdown()
        server.server_close()

    if failed:
        print("error: the upstream did not answer as expected; cassette not written",
              file=sys.stderr)
        return 1

    cassette = {
        "version": 1,
        "meta": {"createdAt": created_at, "recordedWith": "record_example.py"},
        "interactions": interactions,
    }
    write_atomically(args.output,
                     json.dumps(cassette, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"wrote {len(interactions)} interactions to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
