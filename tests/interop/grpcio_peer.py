"""A grpcio peer of triage.Issues for the proxy's interop test: no protobuf,
a generic handler and raw bytes both ways.

  grpcio_peer.py server MESSAGES [gzip | lenient]
                                     serves Subscribe on 127.0.0.1:0, prints
                                     "PORT n", runs until stdin closes.
                                     MESSAGES: one JSON message per line.
                                     gzip: the server compresses by default.
                                     lenient: it takes a client's PINGs as
                                     often as they come (no ping strikes).
  grpcio_peer.py client TARGET COUNT STATUS OUT
                                     one Subscribe call; writes the messages
                                     to OUT (4-byte big-endian length each),
                                     prints the status and trailers as JSON.

A request is {"count": N, "status": CODE}: N messages, then CODE (0 = OK)
with trailing metadata x-origin=grpcio. With "pause": S and "after": M the
server sends the N messages, is quiet for S seconds, then sends M more.
"""

import json
import struct
import sys
import time
from concurrent import futures

import grpc

METHOD = "/triage.Issues/Subscribe"


def code_of(value):
    return next(code for code in grpc.StatusCode if code.value[0] == value)


def server(messages_path, mode=None):
    with open(messages_path, "rb") as f:
        messages = f.read().split(b"\n")[:-1]

    def subscribe(request, context):
        asked = json.loads(request)
        for i in range(asked.get("count", 0)):
            yield messages[i % len(messages)]
        if asked.get("pause"):
            time.sleep(asked["pause"])
            for i in range(asked.get("after", 0)):
                yield messages[i % len(messages)]
        context.set_trailing_metadata((("x-origin", "grpcio"),))
        status = asked.get("status", 0)
        if status:
            context.set_code(code_of(status))
            context.set_details("grpcio says no")

    handler = grpc.method_handlers_generic_handler(
        "triage.Issues",
        {"Subscribe": grpc.unary_stream_rpc_method_handler(subscribe)},
    )
    options = []
    if mode == "lenient":
        options = [
            ("grpc.http2.min_ping_interval_without_data_ms", 10),
            ("grpc.http2.max_ping_strikes", 0),
        ]
    srv = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4),
        compression=grpc.Compression.Gzip if mode == "gzip" else None,
        options=options,
    )
    srv.add_generic_rpc_handlers((handler,))
    port = srv.add_insecure_port("127.0.0.1:0")
    srv.start()
    print(f"PORT {port}", flush=True)
    sys.stdin.read()
    srv.stop(0)


def client(target, count, status, out_path):
    request = json.dumps({"count": int(count), "status": int(status)}).encode()
    received = []
    with grpc.insecure_channel(target) as channel:
        call = channel.unary_stream(METHOD)(
            request, metadata=(("x-tenant", "acme"),), timeout=60
        )
        try:
            for message in call:
                received.append(message)
        except grpc.RpcError:
            pass
        report = {
            "code": call.code().value[0],
            "details": call.details() or "",
            "trailers": {k: v for k, v in (call.trailing_metadata() or ())},
        }
    with open(out_path, "wb") as f:
        for message in received:
            f.write(struct.pack(">I", len(message)))
            f.write(message)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(*sys.argv[2:4])
    else:
        client(*sys.argv[2:6])
