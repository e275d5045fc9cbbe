#!/usr/bin/env python3
"""An HTTP/2 upstream (prior knowledge, no TLS) that takes one stream per connection, for Tapedeck's
tests: it answers the first stream of each connection 200 with "connection C stream S", then sends
GOAWAY naming that stream as the last it will process, and keeps the connection open for --linger
seconds before closing it, ignoring any stream opened meanwhile (as RFC 9113 lets it). A client that
reuses the connection in that window has its stream refused and must retry on a new connection.
Raw frames, no HTTP/2 library: request headers are not decoded, only frames are read.
Prints its address first, then serves until killed.
"""
import argparse
import socket
import threading
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, SETTINGS, PING, GOAWAY = 0x0, 0x1, 0x4, 0x6, 0x7
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4


def frame(kind, flags, stream, payload=b""):
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def read_exactly(connection, count):
    data = b""
    while len(data) < count:
        more = connection.recv(count - len(data))
        if not more:
            raise ConnectionError("closed")
        data += more
    return data


def serve(connection, number, linger):
    try:
        read_exactly(connection, len(PREFACE))
        connection.sendall(frame(SETTINGS, 0, 0))
        answered = None
        while True:
            header = read_exactly(connection, 9)
            length, kind, flags = int.from_bytes(header[:3], "big"), header[3], header[4]
            stream = int.from_bytes(header[5:9], "big") & 0x7FFFFFFF
            read_exactly(connection, length)
            if kind == SETTINGS and not flags & ACK:
                connection.sendall(frame(SETTINGS, ACK, 0))
            elif kind == PING and not flags & ACK:
                connection.sendall(frame(PING, ACK, 0, bytes(8)))
            elif kind == HEADERS and answered is None:
                answered = stream
                body = b"connection %d stream %d" % (number, stream)
                # :status 200 is entry 8 of HPACK's static table.
                connection.sendall(frame(HEADERS, END_HEADERS, stream, b"\x88") + frame(DATA, END_STREAM, stream, body))
                connection.sendall(frame(GOAWAY, 0, 0, stream.to_bytes(4, "big") + bytes(4)))
                threading.Timer(linger, connection.close).start()
    except (ConnectionError, OSError):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--linger", type=float, default=2.0)
    arguments = parser.parse_args()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print("h2 upstream on http://127.0.0.1:%d" % listener.getsockname()[1], flush=True)
    number = 0
    while True:
        connection, _ = listener.accept()
        number += 1
        threading.Thread(target=serve, args=(connection, number, arguments.linger), daemon=True).start()


if __name__ == "__main__":
    main()
