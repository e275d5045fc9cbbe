#!/usr/bin/env python3
"""Makes one call of each kind to scripts/grpc_upstream.py's service at ADDRESS (host:port) with
grpcio, and prints one line per call: the answer's messages, status, details and metadata. Two
runs print the same lines exactly when both services answered the same.
"""
import sys

import grpc


def metadata(pairs):
    return ",".join("%s=%s" % (key, value) for key, value in sorted(pairs or ()) if key.startswith("x-"))


def outcome(name, messages, call):
    return "%s %s %s %r initial[%s] trailing[%s]" % (
        name, " ".join(message.hex() for message in messages), call.code().name, call.details() or "",
        metadata(call.initial_metadata()), metadata(call.trailing_metadata()))


def main(address):
    channel = grpc.insecure_channel(address)
    try:
        grpc.channel_ready_future(channel).result(timeout=10)
    except grpc.FutureTimeoutError:
        print("channel not ready", flush=True)
        return 1

    _, call = channel.unary_unary("/demo.Greeter/SayHello").with_call(b"Ada", timeout=10)
    print(outcome("unary", [_], call))

    stream = channel.unary_stream("/demo.Greeter/SayHellos")(b"Ada", timeout=10)
    print(outcome("server-streaming", list(stream), stream))

    answer, call = channel.stream_unary("/demo.Greeter/Collect").with_call(iter([b"a", b"bb", b"ccc"]), timeout=10)
    print(outcome("client-streaming", [answer], call))

    chat = channel.stream_stream("/demo.Greeter/Chat")(iter([b"one", b"two"]), timeout=10)
    print(outcome("bidirectional", list(chat), chat))

    answer, call = channel.unary_unary("/demo.Greeter/Squeeze").with_call(b"squeeze me " * 20, timeout=10,
                                                                         compression=grpc.Compression.Gzip)
    print(outcome("compressed", [answer[:22], b"%d bytes" % len(answer)], call))

    try:
        channel.unary_unary("/demo.Greeter/Fail").with_call(b"Bob", timeout=10)
        print("error call succeeded")
    except grpc.RpcError as error:
        print(outcome("error", [], error))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
