#!/usr/bin/env python3
"""A live WebSocket service for Tapedeck's tests: Python's `websockets` on a free 127.0.0.1 port,
behind TLS with --cert and --key. It offers permessage-deflate, as `websockets` does by default.

On each connection it greets with "welcome PATH", then answers every message: text as
"echo TEXT", except "frag" (answered with one message in two fragments), "extensions?"
(answered with the extensions this connection agreed, "extensions VALUE"), "close-me"
(answered by closing with 4000 "asked to close") and "flood:N" (answered with N binary
messages of 1 MiB, as fast as the connection takes them); binary reversed. Prints its address first.
"""
import argparse
import asyncio
import ssl

import websockets


async def converse(connection):
    await connection.send("welcome " + connection.request.path)
    async for message in connection:
        if isinstance(message, bytes):
            await connection.send(message[::-1])
        elif message == "extensions?":
            await connection.send("extensions " + connection.response.headers.get("Sec-WebSocket-Extensions", "none"))
        elif message == "frag":
            await connection.send(["part one, ", "part two"])
        elif message.startswith("flood:"):
            for _ in range(int(message[len("flood:"):])):
                await connection.send(bytes(1 << 20))
        elif message == "close-me":
            await connection.close(4000, "asked to close")
            return
        else:
            await connection.send("echo " + message)


async def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    arguments = parser.parse_args()
    context = None
    if arguments.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.cert, arguments.key)
    async with websockets.serve(converse, "127.0.0.1", 0, ssl=context, max_size=None) as server:
        port = server.sockets[0].getsockname()[1]
        print("websocket upstream on http://127.0.0.1:%d" % port, flush=True)
        await asyncio.Future()


asyncio.run(main())
