#!/usr/bin/env python3
"""Record the example client's cassettes against a local stand-in of the example API.

Starts the example API below on a free 127.0.0.1 port, runs the example tests in
record mode against it, then rewrites the recorded origin to the fixed,
never-resolvable http://api.example.test (so the cassettes do not change with the port)
and drops the Date and Server response headers:

    python3 Examples/APIClient/record_cassettes.py            # record all
    python3 Examples/APIClient/record_cassettes.py --serve    # only run the API

What it runs is:

    EXAMPLE_API_BASE_URL=http://127.0.0.1:PORT TAPEDECK_MODE=record \
    TAPEDECK_CASSETTE_DIR=Examples/APIClient/Tests/cassettes \
    swift test --filter ExampleAPIClientTests --no-parallel

Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CASSETTES = HERE / "Tests" / "cassettes"
RECORDED_ORIGIN = "http://api.example.test"

USERS = {"core": [{"id": 1, "name": "Ada", "email": "ada@example.test"},
                  {"id": 2, "name": "Grace", "email": "grace@example.test"}]}
VALID_TOKENS = {"token-1", "token-2"}
REFRESH_TOKENS = {"refresh-1": "token-2"}
REPORT = "month,visits\n2026-01,120\n2026-02,98\n"


class ExampleAPI(BaseHTTPRequestHandler):
    """The example API: users, a form post, a multipart upload, a CSV report, a token refresh."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 (signature from the base class)
        pass

    def reply(self, status: int, body: bytes, content_type: str = "application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def reply_json(self, status: int, value):
        self.reply(status, json.dumps(value, separators=(",", ":"), sort_keys=True).encode())

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))

    def authorized(self) -> bool:
        token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        if token in VALID_TOKENS:
            return True
        self.reply_json(401, {"error": "invalid or expired token"})
        return False

    def do_GET(self):
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if url.path == "/users":
            if not self.authorized():
                return
            team = query.get("team", [""])[0]
            if team not in USERS:
                return self.reply_json(404, {"error": "team not found"})
            return self.reply_json(200, USERS[team])
        if url.path == "/reports/2026.csv":
            if not self.authorized():
                return
            return self.reply(200, REPORT.encode(), "text/csv")
        if url.path == "/me":
            if not self.authorized():
                return
            return self.reply_json(200, USERS["core"][0])
        self.reply_json(404, {"error": "no such endpoint"})

    def do_POST(self):
        url = urlsplit(self.path)
        body = self.body()
        if url.path == "/oauth/token":
            form = parse_qs(body.decode())
            token = REFRESH_TOKENS.get(form.get("refresh_token", [""])[0])
            if form.get("grant_type") != ["refresh_token"] or token is None:
                return self.reply_json(400, {"error": "invalid_grant"})
            return self.reply_json(200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600})
        if not self.authorized():
            return
        if url.path == "/users":
            form = parse_qs(body.decode())
            return self.reply_json(201, {"id": 3, "name": form["name"][0], "email": form["email"][0]})
        if url.path == "/avatars":
            head = f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode()
            message = BytesParser(policy=HTTP).parsebytes(head + body)
            fields = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}
            avatar = fields["avatar"]
            return self.reply_json(200, {"fileName": avatar.get_filename(),
                                         "size": len(avatar.get_payload(decode=True)),
                                         "description": fields["description"].get_payload(decode=True).decode()})
        self.reply_json(404, {"error": "no such endpoint"})


def start() -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), ExampleAPI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


# Response headers that change on every run; dropped so a re-recording only differs where the API did.
VOLATILE_HEADERS = {"date", "server"}


def normalize(origin: str) -> None:
    """Rewrite the recorded origin to RECORDED_ORIGIN and drop volatile response headers."""
    for file in sorted(CASSETTES.glob("*.json")):
        cassette = json.loads(file.read_text())
        for interaction in cassette["interactions"]:
            request = interaction["request"]
            request["url"] = request["url"].replace(origin, RECORDED_ORIGIN, 1)
            headers = interaction["response"].get("headers", {})
            for name in [name for name in headers if name.lower() in VOLATILE_HEADERS]:
                del headers[name]
        file.write_text(json.dumps(cassette, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        print(f"recorded {file.relative_to(REPO)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", action="store_true", help="only run the example API until interrupted")
    args = parser.parse_args()
    server, origin = start()
    print(f"example API listening on {origin}", flush=True)
    if args.serve:
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            return 0
    env = dict(os.environ, EXAMPLE_API_BASE_URL=origin, TAPEDECK_MODE="record",
               TAPEDECK_CASSETTE_DIR=str(CASSETTES), no_proxy="127.0.0.1", NO_PROXY="127.0.0.1")
    status = subprocess.call(["swift", "test", "--filter", "ExampleAPIClientTests", "--no-parallel"], cwd=REPO, env=env)
    server.shutdown()
    if status == 0:
        normalize(origin)
    return status


if __name__ == "__main__":
    sys.exit(main())
