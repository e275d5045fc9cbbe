#!/usr/bin/env python3
"""A live upstream that takes uploads, on a free 127.0.0.1 port (or --port N).

Every POST or PUT is read whole, in pieces of 1 MiB, whether it comes with a Content-Length or
chunked, and answered 200 with the JSON {"bytes": N, "sha256": HEX}: what arrived, so a test can
check an upload that passed through Tapedeck byte for byte. A path under /early/ is answered as soon as
1 MiB of its body arrived, {"answeredAfter": N}, and the rest is read after the answer (a service
that answers before it read all). Any other method answers 405.
It is also the Python http.server baseline of scripts/bench-upload.sh. Prints
`listening on http://127.0.0.1:PORT` when ready.
"""
import hashlib
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PIECE = 1 << 20


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def pieces(self):
        """The body's pieces, by its Content-Length or its chunks."""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return
                yield from self.read(size)
                self.rfile.readline()
        yield from self.read(int(self.headers.get("Content-Length", "0")))

    def read(self, size):
        """The next `size` bytes of the body, in pieces of at most 1 MiB."""
        while size > 0:
            piece = self.rfile.read(min(size, PIECE))
            if not piece:
                raise ConnectionError("the client left mid-body")
            size -= len(piece)
            yield piece

    def take_upload(self):
        digest = hashlib.sha256()
        count = 0
        early = self.path.startswith("/early/")
        for piece in self.pieces():
            if early and count < PIECE <= count + len(piece):
                self.answer(200, {"answeredAfter": count + len(piece)})
            digest.update(piece)
            count += len(piece)
        if not early:
            self.answer(200, {"bytes": count, "sha256": digest.hexdigest()})

    do_POST = take_upload
    do_PUT = take_upload

    def do_GET(self):
        self.answer(405, {"error": "uploads only: POST or PUT"})

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 0
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
