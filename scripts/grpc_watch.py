#!/usr/bin/env python3
"""A client that leaves a watch but not the connection: calls /demo.Greeter/Watch
(scripts/grpc_upstream.py, a server stream without end) at ADDRESS (host:port), cancels the call
after COUNT messages (default 2), then says hello on the same connection and keeps it open two
seconds more, so only the call ended. Prints the watch's messages and status, and the hello.

Usage: grpc_watch.py [COUNT] ADDRESS
"""
import sys
import time

import grpc


def main(arguments):
    count = int(arguments[0]) if len(arguments) > 1 else 2
    channel = grpc.insecure_channel(arguments[-1])
    grpc.channel_ready_future(channel).result(timeout=10)
    call = channel.unary_stream("/demo.Greeter/Watch")(b"tick", timeout=300)
    answers = []
    for answer in call:
        answers.append(answer)
        if len(answers) == count:
            call.cancel()
            break
    hello = channel.unary_unary("/demo.Greeter/SayHello")(b"again", timeout=10)
    time.sleep(2)
    print("watch", " ".join(answer.decode() for answer in answers), call.code().name, hello.decode(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
