#!/usr/bin/env python3
"""A small GraphQL service to record Tapedeck against, on graphql-core (pip install graphql-core).

One endpoint, /graphql, answering a tiny schema of users:

    type Query    { user(id: ID!): User   users(first: Int = 10, after: ID): [User!]! }
    type Mutation { rename(id: ID!, name: String!): User }
    type User     { id: ID!  name: String!  email: String }

It takes the requests GraphQL clients send:
    POST /graphql  a JSON body {"query", "operationName", "variables", "extensions"}
    GET  /graphql?query=...&operationName=...&variables=<JSON>
Apollo's automatic persisted queries too: a request with extensions.persistedQuery.sha256Hash
and the query stores the query under its hash; one with the hash alone runs the stored query, or
answers {"errors": [{"message": "PersistedQueryNotFound"}]} as Apollo Server does. Answers are
200 application/json with `data` and `errors` as graphql-core gives them; a body that is not
JSON gets 400. Anything else is 404.

Usage:
    python3 scripts/graphql_upstream.py [--port PORT]

It binds 127.0.0.1 only. --port 0 (the default) picks a free port; the server then prints
`graphql upstream listening on http://127.0.0.1:PORT` and serves until interrupted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from graphql import build_schema, graphql_sync

HOST = "127.0.0.1"

SCHEMA = build_schema("""
    type Query {
      user(id: ID!): User
      users(first: Int = 10, after: ID): [User!]!
    }
    type Mutation {
      rename(id: ID!, name: String!): User
    }
    type User {
      id: ID!
      name: String!
      email: String
    }
""")

USERS = {
    "1": {"id": "1", "name": "Ada", "email": "ada@example.test"},
    "2": {"id": "2", "name": "Grace", "email": None},
    "3": {"id": "3", "name": "Edsger", "email": "edsger@example.test"},
}


class Root:
    """Resolvers for the root fields, which graphql-core reads from the root value."""

    lock = threading.Lock()

    @staticmethod
    def user(_info, id):
        return USERS.get(id)

    @staticmethod
    def users(_info, first=10, after=None):
        ordered = sorted(USERS.values(), key=lambda user: int(user["id"]))
        if after is not None:
            ordered = [user for user in ordered if int(user["id"]) > int(after)]
        return ordered[:first]

    @classmethod
    def rename(cls, _info, id, name):
        with cls.lock:
            if id not in USERS:
                return None
            USERS[id] = dict(USERS[id], name=name)
            return USERS[id]


PERSISTED: dict[str, str] = {}


def execute(envelope: dict) -> dict:
    """Runs one request's envelope, with Apollo's persisted queries, and returns the answer's JSON."""
    query = envelope.get("query")
    extensions = envelope.get("extensions") or {}
    persisted = extensions.get("persistedQuery") if isinstance(extensions, dict) else None
    digest = persisted.get("sha256Hash") if isinstance(persisted, dict) else None
    if digest is not None:
        if query is not None:
            if hashlib.sha256(query.encode()).hexdigest() != digest:
                return {"errors": [{"message": "provided sha does not match query"}]}
            PERSISTED[digest] = query
        elif digest in PERSISTED:
            query = PERSISTED[digest]
        else:
            return {"errors": [{"message": "PersistedQueryNotFound"}]}
    if not isinstance(query, str):
        return {"errors": [{"message": "no query given"}]}
    result = graphql_sync(SCHEMA, query, root_value=Root, variable_values=envelope.get("variables"),
                          operation_name=envelope.get("operationName"))
    answer: dict = {"data": result.data}
    if result.errors:
        answer["errors"] = [error.formatted for error in result.errors]
    return answer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args):
        pass

    def send_json(self, status: int, value) -> None:
        body = json.dumps(value, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path != "/graphql":
            return self.send_json(404, {"error": "not found"})
        parameters = {name: values[0] for name, values in parse_qs(url.query).items()}
        try:
            envelope = {
                "query": parameters.get("query"),
                "operationName": parameters.get("operationName"),
                "variables": json.loads(parameters["variables"]) if "variables" in parameters else None,
                "extensions": json.loads(parameters["extensions"]) if "extensions" in parameters else None,
            }
        except json.JSONDecodeError:
            return self.send_json(400, {"errors": [{"message": "variables or extensions are not JSON"}]})
        self.send_json(200, execute(envelope))

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if urlsplit(self.path).path != "/graphql":
            return self.send_json(404, {"error": "not found"})
        try:
            envelope = json.loads(body)
        except json.JSONDecodeError:
            return self.send_json(400, {"errors": [{"message": "the body is not JSON"}]})
        if not isinstance(envelope, dict):
            return self.send_json(400, {"errors": [{"message": "the body is not a JSON object"}]})
        self.send_json(200, execute(envelope))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    arguments = parser.parse_args()
    server = ThreadingHTTPServer((HOST, arguments.port), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    print(f"graphql upstream listening on http://{HOST}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
