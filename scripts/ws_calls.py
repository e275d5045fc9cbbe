#!/usr/bin/env python3
"""A WebSocket client for Tapedeck's tests and benchmark, on Python's `websockets`.

    ws_calls.py URL [--proxy URL] [--cafile PEM] [--show-extensions] [--no-compression] STEP...

Connects (through an HTTP proxy with --proxy, trusting --cafile for wss://) and runs the steps
in order, printing one line for each message heard and, last, how the connection closed
(first, with --show-extensions, the extensions the server agreed, as "extensions VALUE").
It offers permessage-deflate, as `websockets` does, unless --no-compression:
  recv            wait for a message
  send:TEXT       send a text message
  bin:HEX         send a binary message
  ping            ping and wait for the pong (never printed)
  pingfor:S       ping every 50 ms for S seconds, then print "pinged for S seconds"
  close:CODE:WHY  close with a code and reason
  echo:N          send N messages one at a time, each after the answer to the one before,
                  and print "echoed N in S seconds" instead of the answers
A connection the server closes ends the steps; steps that end with it open close it (1000).
"""
import argparse
import asyncio
import ssl
import time

import websockets


def shown(message):
    return "binary " + message.hex() if isinstance(message, bytes) else "text " + message


async def run(arguments):
    context = None
    if arguments.url.startswith("wss:"):
        context = ssl.create_default_context(cafile=arguments.cafile)
    compression = None if arguments.no_compression else "deflate"
    async with websockets.connect(arguments.url, proxy=arguments.proxy, ssl=context, max_size=None,
                                  compression=compression, open_timeout=arguments.open_timeout) as connection:
        if arguments.show_extensions:
            print("extensions %s" % connection.response.headers.get("Sec-WebSocket-Extensions", "none"), flush=True)
        try:
            for step in arguments.steps:
                kind, _, rest = step.partition(":")
                if kind == "recv":
                    print(shown(await connection.recv()), flush=True)
                elif kind == "send":
                    await connection.send(rest)
                elif kind == "bin":
                    await connection.send(bytes.fromhex(rest))
                elif kind == "ping":
                    await (await connection.ping())
                elif kind == "pingfor":
                    until = time.monotonic() + float(rest)
                    while time.monotonic() < until:
                        await (await connection.ping())
                        await asyncio.sleep(0.05)
                    print("pinged for %s seconds" % rest, flush=True)
                elif kind == "close":
                    code, _, reason = rest.partition(":")
                    await connection.close(int(code), reason)
                elif kind == "echo":
                    count = int(rest)
                    start = time.monotonic()
                    for number in range(count):
                        await connection.send("message %d" % number)
                        await connection.recv()
                    print("echoed %d in %.3f seconds" % (count, time.monotonic() - start), flush=True)
        except websockets.ConnectionClosed:
            pass
        await connection.close()  # returns at once when the server closed
    received = connection.protocol.close_rcvd
    print("closed %s %s" % (received.code if received else "none", received.reason if received else ""), flush=True)


parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("url")
parser.add_argument("--proxy", default=None)
parser.add_argument("--cafile")
parser.add_argument("--show-extensions", action="store_true")
parser.add_argument("--no-compression", action="store_true")
parser.add_argument("--open-timeout", type=float, default=10, help="seconds the opening handshake may take (default 10)")
parser.add_argument("steps", nargs="*")
asyncio.run(run(parser.parse_intermixed_args()))
