#!/usr/bin/env python3
"""A small local HTTP server to record Tapedeck's example cassette against.

It answers the kinds of requests a record/replay tool has to get right: a
plain-text GET with a query, a form POST, a raw JSON POST, a multipart upload,
a binary PNG, a gzip-compressed JSON body, a 404 that a client treats as an
empty list, and a text/event-stream that arrives in timed pieces.

Usage:
    python3 scripts/example_upstream.py [--port PORT] [--quiet]

It binds 127.0.0.1 only. --port 0 (the default) picks a free port; the server
then prints `example upstream listening on http://127.0.0.1:PORT` and serves
until interrupted (Ctrl-C or SIGTERM, exit status 0).

Endpoints:
    GET  /plaintext?name=Shawn  200 text/plain        "Hello Shawn!"
    POST /postName              200 application/json  built from the form body name=Shawn&sex=1
    POST /postBodyData          200 application/json  {"received": <the JSON body>, "id": 42}
    POST /upload                200 application/json  the multipart parts: name, filename, type, size
    GET  /image.png             200 image/png         a 16x16 gradient PNG made in code
    GET  /gzip-json             200 application/json  with Content-Encoding: gzip
    GET  /gzip-zeros?size=N     200 application/octet-stream  N zero bytes in gzip (a
                                compression bomb, at the size a test asks for, up to
                                4 GiB; 400 for a larger or malformed size)
    GET  /users?team=empty      404 application/json  {"error":"team not found"}
    GET  /users[?team=core]     200 application/json  a list of users
    GET  /events                200 text/event-stream three events about 50 ms apart, then close
    anything else               404 (405 for a known path with the wrong method)

Every response has Content-Type and Content-Length, except /events, which has
no length and closes the connection when done. Only the standard library is
used; record_example.py imports make_server() from here to run it in-process.
"""

from __future__ import annotations

import argparse
import gzip
import json
import signal
import struct
import sys
import threading
import time
import zlib
from email.parser import BytesHeaderParser
from email.policy import HTTP as HTTP_POLICY
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

HOST = "127.0.0.1"

USERS = {
    "core": [{"id": 1, "name": "Shawn"}, {"id": 2, "name": "Xiaoming"}],
    "docs": [{"id": 3, "name": "Ada"}],
}

EVENTS = [b"data: one\n\n", b"data: two\n\n", b"data: three\n\n"]
EVENT_INTERVAL_S = 0.05


def compact_json(value) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def make_png(width: int = 16, height: int = 16) -> bytes:
    """A real RGB PNG: red grows left to right, green top to bottom, blue fixed."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter type: none
        for x in range(width):
            rows += bytes((x * 255 // (width - 1), y * 255 // (height - 1), 128))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


PNG_BYTES = make_png()


def parse_multipart(body: bytes, content_type: str) -> list[dict]:
    """Split a multipart/form-data body into parts, byte-exact.

    The boundary split is done by hand (the cgi module is deprecated and the
    email parser is not byte-exact for binary parts); each part's header block
    is parsed with the email package.
    """
    header = BytesHeaderParser(policy=HTTP_POLICY).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n")
    boundary = header.get_param("boundary")
    if not boundary or header.get_content_type() != "multipart/form-data":
        raise ValueError("not multipart/form-data with a boundary")
    delimiter = b"--" + boundary.encode("latin-1")
    sections = body.split(delimiter)
    if len(sections) < 3:
        raise ValueError("no parts found")
    parts = []
    # sections[0] is the preamble; the last one starts with "--" (the close delimiter).
    for section in sections[1:]:
        if section.startswith(b"--"):
            break
        if not section.startswith(b"\r\n") or not section.endswith(b"\r\n"):
            raise ValueError("malformed part")
        section = section[2:-2]
        head, sep, content = section.partition(b"\r\n\r\n")
        if not sep:
            raise ValueError("part without a header block")
        headers = BytesHeaderParser(policy=HTTP_POLICY).parsebytes(head + b"\r\n\r\n")
        parts.append({
            "name": headers.get_param("name", header="content-disposition"),
            "filename": headers.get_param("filename", header="content-disposition"),
            "contentType": headers.get("Content-Type"),
            "size": len(content),
        })
    return parts


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive capable, so Content-Length matters
    server_version = "ExampleUpstream/1.0"
    quiet = False

    # ---- plumbing -------------------------------------------------------

    def log_message(self, format, *args):  # noqa: A002 (signature from the base class)
        if not self.quiet:
            super().log_message(format, *args)

    def read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def send(self, status: int, content_type: str, body: bytes, extra: dict | None = None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status: int, value, extra: dict | None = None):
        self.send(status, "application/json", compact_json(value), extra)

    def not_found(self):
        self.send_json(404, {"error": "not found", "path": urlsplit(self.path).path})

    ROUTES = {
        ("GET", "/plaintext"): "plaintext",
        ("POST", "/postName"): "post_name",
        ("POST", "/postBodyData"): "post_body_data",
        ("POST", "/upload"): "upload",
        ("GET", "/image.png"): "image",
        ("GET", "/gzip-json"): "gzip_json",
        ("GET", "/gzip-zeros"): "gzip_zeros",
        ("GET", "/users"): "users",
        ("GET", "/events"): "events",
    }

    def dispatch(self):
        url = urlsplit(self.path)
        # Read any body first so an unanswered body never poisons keep-alive.
        body = self.read_body() if self.command in ("POST", "PUT", "PATCH") else b""
        route = self.ROUTES.get((self.command, url.path))
        if route is None:
            allowed = sorted(m for (m, p) in self.ROUTES if p == url.path)
            if allowed:
                self.send_json(405, {"error": "method not allowed"},
                               {"Allow": ", ".join(allowed)})
            else:
                self.not_found()
            return
        getattr(self, "do_route_" + route)(parse_qs(url.query, keep_blank_values=True), body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = dispatch

    # ---- endpoints ------------------------------------------------------

    def do_route_plaintext(self, query, body):
        name = query.get("name", ["World"])[0]
        self.send(200, "text/plain; charset=utf-8", f"Hello {name}!".encode("utf-8"))

    def do_route_post_name(self, query, body):
        form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
        name = form.get("name", [""])[0]
        sex = form.get("sex", [""])[0]
        self.send_json(200, {"name": name, "sex": sex, "greeting": f"Hi {name}"})

    def do_route_post_body_data(self, query, body):
        try:
            received = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            self.send_json(400, {"error": f"body is not JSON: {e}"})
            return
        self.send_json(200, {"received": received, "id": 42})

    def do_route_upload(self, query, body):
        try:
            parts = parse_multipart(body, self.headers.get("Content-Type", ""))
        except ValueError as e:
            self.send_json(400, {"error": str(e)})
            return
        self.send_json(200, {"parts": parts, "count": len(parts)})

    def do_route_image(self, query, body):
        self.send(200, "image/png", PNG_BYTES)

    def do_route_gzip_json(self, query, body):
        payload = compact_json({"items": [{"id": 1, "name": "alpha"}, {"id": 2, "name": "beta"}],
                                "compressed": True})
        # mtime=0 keeps the compressed bytes identical from run to run.
        self.send(200, "application/json", gzip.compress(payload, mtime=0),
                  {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})

    # The largest /gzip-zeros answer: 4 GiB of zeros are about 4 MB of gzip.
    GZIP_ZEROS_LIMIT = 4 << 30

    def do_route_gzip_zeros(self, query, body):
        text = query.get("size", ["0"])[0]
        size = int(text) if text.isdigit() else -1
        if not 0 <= size <= self.GZIP_ZEROS_LIMIT:
            self.send_json(400, {"error": f"size must be a whole number of bytes up to {self.GZIP_ZEROS_LIMIT}"})
            return
        # Compressed a mebibyte at a time: the zeros are never all in memory.
        compressor = zlib.compressobj(wbits=31)  # gzip's header and trailer
        zeros, pieces = memoryview(bytes(1 << 20)), []
        for start in range(0, size, len(zeros)):
            pieces.append(compressor.compress(zeros[:min(size - start, len(zeros))]))
        pieces.append(compressor.flush())
        self.send(200, "application/octet-stream", b"".join(pieces), {"Content-Encoding": "gzip"})

    def do_route_users(self, query, body):
        team = query.get("team", [None])[0]
        if team is None:
            self.send_json(200, [u for members in USERS.values() for u in members])
        elif team in USERS:
            self.send_json(200, USERS[team])
        else:
            # Many APIs answer 404 for an empty collection; clients map it to [].
            self.send_json(404, {"error": "team not found"})

    def do_route_events(self, query, body):
        # No Content-Length: the stream ends when the connection closes.
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        for i, event in enumerate(EVENTS):
            if i:
                time.sleep(EVENT_INTERVAL_S)
            self.wfile.write(event)
            self.wfile.flush()


def make_server(port: int = 0, quiet: bool = False) -> ThreadingHTTPServer:
    """Create (but do not start) the server on 127.0.0.1:port; port 0 = any free port."""
    handler = type("QuietHandler" if quiet else "Handler", (Handler,), {"quiet": quiet})
    server = ThreadingHTTPServer((HOST, port), handler)
    server.daemon_threads = True
    # Keep-alive clients may hold a connection open forever: do not wait for them on close.
    server.block_on_close = False
    return server


def start_in_thread(port: int = 0, quiet: bool = True) -> tuple[ThreadingHTTPServer, str]:
    """Start the server on a background thread; returns (server, base URL)."""
    server = make_server(port, quiet)
    threading.Thread(target=server.serve_forever, name="example-upstream", daemon=True).start()
    return server, f"http://{HOST}:{server.server_address[1]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Example upstream for Tapedeck recordings.")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 = any free port)")
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    args = parser.parse_args(argv)

    server = make_server(args.port, args.quiet)
    print(f"example upstream listening on http://{HOST}:{server.server_address[1]}", flush=True)

    def stop(signum, frame):
        # shutdown() waits for serve_forever() to return, so call it off-thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
