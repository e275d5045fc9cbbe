#!/usr/bin/env python3
"""A bidirectional gRPC client that waits for each answer before it sends its next message, as a
chat does: calls /demo.Greeter/Chat (scripts/grpc_upstream.py) at ADDRESS (host:port) with "ping"
and then "pong", and prints the answers and the status on one line. With --all-at-once it sends
both messages first and reads the answers after, as a client that does not wait; with --leave it
cancels the call after the first answer, as a client that goes away mid-call; --second WORD sends
WORD instead of "pong".

Usage: grpc_pingpong.py [--all-at-once | --leave] [--second WORD] ADDRESS
"""
import queue
import sys

import grpc


def main(arguments):
    all_at_once = "--all-at-once" in arguments
    leave = "--leave" in arguments
    second = arguments[arguments.index("--second") + 1] if "--second" in arguments else "pong"
    address = arguments[-1]
    channel = grpc.insecure_channel(address)
    grpc.channel_ready_future(channel).result(timeout=10)
    chat = channel.stream_stream("/demo.Greeter/Chat")
    words = [b"ping", second.encode()]
    if all_at_once:
        call = chat(iter(words), timeout=10)
        answers = list(call)
    else:
        outgoing = queue.Queue()

        def requests():
            while (word := outgoing.get()) is not None:
                yield word

        call = chat(requests(), timeout=10)
        answers = []
        try:
            for word in words:
                outgoing.put(word)
                answers.append(next(call))  # waits for the answer to this message
                if leave:
                    call.cancel()
                    break
            outgoing.put(None)
            answers += list(call)
        except grpc.RpcError:
            outgoing.put(None)
    details = " %r" % call.details() if call.code() != grpc.StatusCode.OK and call.details() else ""
    print("chat", " ".join(answer.decode() for answer in answers), call.code().name + details, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
