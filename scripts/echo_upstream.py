#!/usr/bin/env python3
"""A configurable live service for the drift and secrets tests, on a free 127.0.0.1 port.

Usage: echo_upstream.py ROUTES.json. ROUTES maps a path to {"status": N, "contentType": "...",
"body": <JSON>, "requireHeader": [NAME, VALUE] (else 401), "echoHeader": NAME (the header's value
is sent back in the body as "echo" and in the response header X-Echo), "headers": {NAME: VALUE}
(sent with the answer), "gzip": true (the body sent gzip-compressed)}. Prints
`listening on http://127.0.0.1:PORT` when ready.
"""
import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

ROUTES = json.load(open(sys.argv[1]))


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self):
        route = ROUTES.get(urlsplit(self.path).path)
        if route is None:
            return self.send_json(404, "application/json", {"error": "no route"})
        required = route.get("requireHeader")
        if required and self.headers.get(required[0]) != required[1]:
            return self.send_json(401, "application/json", {"error": "missing credentials"})
        body = dict(route["body"]) if isinstance(route["body"], dict) else route["body"]
        extra = dict(route.get("headers", {}))
        if route.get("echoHeader"):
            body["echo"] = extra["X-Echo"] = self.headers.get(route["echoHeader"])
        self.send_json(route["status"], route["contentType"], body, extra, route.get("gzip", False))

    def send_json(self, status, content_type, body, extra=None, compressed=False):
        data = json.dumps(body).encode()
        if compressed:
            data = gzip.compress(data)
            extra = dict(extra or {}, **{"Content-Encoding": "gzip"})
        self.send_response(status)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = answer


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
