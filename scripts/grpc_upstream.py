#!/usr/bin/env python3
"""A live gRPC service for Tapedeck's tests: grpcio on a free 127.0.0.1 port, raw bytes (no
generated code), all four call kinds and an error. Prints its address, then serves until killed.

/demo.Greeter/SayHello    unary: "hello:" + the message; initial metadata x-greeter, trailing x-served-by
/demo.Greeter/SayHellos   server streaming: the message + "#0", "#1", "#2", 20 ms apart
/demo.Greeter/Collect     client streaming: the messages joined with "+"
/demo.Greeter/Chat        bidirectional: each message upper-cased, as it comes
/demo.Greeter/Fail        unary: NOT_FOUND "no greeting for " + the message, with trailing metadata
/demo.Greeter/Squeeze     unary: the message repeated 50 times, sent compressed with gzip
/demo.Greeter/Watch       server streaming without end: the message + "#0", "#1", ... 50 ms apart
                          until the client cancels (at most five minutes), as a watch or subscribe call

/demo.Notes/* is the same in protobuf (Tests/Fixtures/proto/notes.proto, `Note {text, seq}`), for
clients generated from that file; its two fields are encoded here by hand, so no generated Python
code and no protobuf package are needed.
"""
import sys
import time
from concurrent import futures

import grpc


def say_hello(request, context):
    context.send_initial_metadata((("x-greeter", "py"),))
    context.set_trailing_metadata((("x-served-by", "grpcio"),))
    return b"hello:" + request


def say_hellos(request, context):
    for index in range(3):
        if index:
            time.sleep(0.02)
        yield request + b"#%d" % index


def collect(requests, context):
    return b"+".join(requests)


def watch(request, context):
    for index in range(6000):
        if not context.is_active():
            return
        if index:
            time.sleep(0.05)
        yield request + b"#%d" % index


def chat(requests, context):
    for request in requests:
        yield request.upper()


def fail(request, context):
    context.set_trailing_metadata((("x-reason", "missing"),))
    context.abort(grpc.StatusCode.NOT_FOUND, "no greeting for " + request.decode())


def squeeze(request, context):
    context.set_compression(grpc.Compression.Gzip)
    return request * 50


def varint(value):
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        low = value & 0x7F
        value >>= 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def note(text, seq=0):
    """A `demo.Note` in protobuf's wire format: text as field 1, seq as field 2 (default values left out)."""
    encoded = text.encode()
    return (b"\x0a" + varint(len(encoded)) + encoded if encoded else b"") + (b"\x10" + varint(seq) if seq else b"")


def read_note(data):
    """The text and seq of a `demo.Note`; other fields are skipped as protobuf readers do."""
    text, seq, index = "", 0, 0

    def read_varint():
        nonlocal index
        value, shift = 0, 0
        while True:
            byte = data[index]
            index += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while index < len(data):
        key = read_varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            value = read_varint()
            if field == 2:
                seq = value - (1 << 64) if value >= 1 << 63 else value
        elif wire == 2:
            length = read_varint()
            chunk, index = data[index:index + length], index + length
            if field == 1:
                text = chunk.decode()
        elif wire == 5:
            index += 4
        elif wire == 1:
            index += 8
        else:
            raise ValueError("wire type %d" % wire)
    return text, seq


def echo(request, context):
    text, seq = read_note(request)
    context.send_initial_metadata((("x-notes", "py"),))
    context.set_trailing_metadata((("x-served-by", "grpcio"),))
    return note("noted: " + text, seq + 1)


def recite(request, context):
    text, _ = read_note(request)
    for index in range(3):
        if index:
            time.sleep(0.02)
        yield note(text, index)


def join(requests, context):
    texts = [read_note(request)[0] for request in requests]
    return note("+".join(texts), len(texts))


def shout(requests, context):
    for request in requests:
        text, seq = read_note(request)
        yield note(text.upper(), seq)


def refuse(request, context):
    text, _ = read_note(request)
    context.set_trailing_metadata((("x-reason", "missing"),))
    context.abort(grpc.StatusCode.NOT_FOUND, "no note for " + text)


def main():
    handlers = {
        "SayHello": grpc.unary_unary_rpc_method_handler(say_hello),
        "SayHellos": grpc.unary_stream_rpc_method_handler(say_hellos),
        "Collect": grpc.stream_unary_rpc_method_handler(collect),
        "Chat": grpc.stream_stream_rpc_method_handler(chat),
        "Fail": grpc.unary_unary_rpc_method_handler(fail),
        "Squeeze": grpc.unary_unary_rpc_method_handler(squeeze),
        "Watch": grpc.unary_stream_rpc_method_handler(watch),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    notes = {
        "Echo": grpc.unary_unary_rpc_method_handler(echo),
        "Recite": grpc.unary_stream_rpc_method_handler(recite),
        "Join": grpc.stream_unary_rpc_method_handler(join),
        "Shout": grpc.stream_stream_rpc_method_handler(shout),
        "Refuse": grpc.unary_unary_rpc_method_handler(refuse),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("demo.Greeter", handlers),
                                     grpc.method_handlers_generic_handler("demo.Notes", notes)))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print("grpc upstream on http://127.0.0.1:%d" % port, flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    sys.exit(main())
