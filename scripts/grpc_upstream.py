#!/usr/bin/env python3
"""A live gRPC service for Tapedeck's tests: grpcio on a free 127.0.0.1 port, raw bytes (no
generated code), all four call kinds and an error. Prints its address, then serves until killed.

/demo.Greeter/SayHello    unary: "hello:" + the message; initial metadata x-greeter, trailing x-served-by
/demo.Greeter/SayHellos   server streaming: the message + "#0", "#1", "#2", 20 ms apart
/demo.Greeter/Collect     client streaming: the messages joined with "+"
/demo.Greeter/Chat        bidirectional: each message upper-cased, as it comes
/demo.Greeter/Fail        unary: NOT_FOUND "no greeting for " + the message, with trailing metadata
/demo.Greeter/Squeeze     unary: the message repeated 50 times, sent compressed with gzip
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


def chat(requests, context):
    for request in requests:
        yield request.upper()


def fail(request, context):
    context.set_trailing_metadata((("x-reason", "missing"),))
    context.abort(grpc.StatusCode.NOT_FOUND, "no greeting for " + request.decode())


def squeeze(request, context):
    context.set_compression(grpc.Compression.Gzip)
    return request * 50


def main():
    handlers = {
        "SayHello": grpc.unary_unary_rpc_method_handler(say_hello),
        "SayHellos": grpc.unary_stream_rpc_method_handler(say_hellos),
        "Collect": grpc.stream_unary_rpc_method_handler(collect),
        "Chat": grpc.stream_stream_rpc_method_handler(chat),
        "Fail": grpc.unary_unary_rpc_method_handler(fail),
        "Squeeze": grpc.unary_unary_rpc_method_handler(squeeze),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("demo.Greeter", handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print("grpc upstream on http://127.0.0.1:%d" % port, flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    sys.exit(main())
