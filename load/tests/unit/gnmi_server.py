"""A gNMI server for the gNMI users' tests, run as its own process (plain grpcio on threads,
no gevent, no Locust): ``python gnmi_server.py CERT KEY [--hold-for N] [--end-after K]``
prints the port it listens on (127.0.0.1, TLS) and serves until killed.

- Every RPC needs the metadata username ``admin`` and password ``lab-secret``, else
  UNAUTHENTICATED.
- Get answers one notification (now, one update per path), only once ``hold-for`` Gets are
  in flight at once (a test of concurrency: clients that run one at a time never get there
  and time out).
- Subscribe STREAM SAMPLE: the initial state (timestamped 1 ns after the epoch, as a value
  that last changed long ago), ``sync_response``, then one notification per sample interval
  timestamped when it is sent; with ``end-after`` the stream ends after that many.
- Capabilities answers, instead of a version, this server's own counters as JSON: peers
  (client addresses, one per connection), the sample intervals asked for, subscriptions
  active and most at once, most Gets in flight at once.
"""

import argparse
import json
import sys
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

CREDENTIALS = {"username": "admin", "password": "lab-secret"}
HOLD_TIMEOUT_S = 10.0


class Counters:
    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.peers: set[str] = set()
        self.intervals: list[int] = []
        self.active = 0
        self.most_active = 0
        self.in_flight = 0
        self.most_in_flight = 0


class Servicer(gnmi_pb2_grpc.gNMIServicer):
    def __init__(self, hold_for: int, end_after: int) -> None:
        self.hold_for = hold_for
        self.end_after = end_after
        self.counters = Counters()

    def _admit(self, context: Any) -> None:
        metadata = dict(context.invocation_metadata())
        with self.counters.lock:
            self.counters.peers.add(context.peer())
        if any(metadata.get(key) != value for key, value in CREDENTIALS.items()):
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "wrong username or password")

    def Capabilities(self, request: Any, context: Any) -> Any:  # noqa: N802 (gRPC's name)
        self._admit(context)
        c = self.counters
        with c.lock:
            counters = {
                "peers": sorted(c.peers),
                "intervals": c.intervals,
                "active": c.active,
                "most_active": c.most_active,
                "most_in_flight": c.most_in_flight,
            }
        return gnmi_pb2.CapabilityResponse(gNMI_version=json.dumps(counters))

    def Get(self, request: Any, context: Any) -> Any:  # noqa: N802
        self._admit(context)
        c = self.counters
        with c.lock:
            c.in_flight += 1
            c.most_in_flight = max(c.most_in_flight, c.in_flight)
            c.lock.notify_all()
            held = c.lock.wait_for(lambda: c.most_in_flight >= self.hold_for, HOLD_TIMEOUT_S)
            c.in_flight -= 1
        if not held:
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "too few Gets at once")
        updates = [
            gnmi_pb2.Update(path=path, val=gnmi_pb2.TypedValue(json_ietf_val=b'{"mtu": 1500}'))
            for path in request.path
        ]
        notification = gnmi_pb2.Notification(timestamp=time.time_ns(), update=updates)
        return gnmi_pb2.GetResponse(notification=[notification])

    def Subscribe(self, requests: Iterator[Any], context: Any) -> Iterator[Any]:  # noqa: N802
        self._admit(context)
        first = next(requests)
        [subscription] = first.subscribe.subscription
        interval_ns = subscription.sample_interval
        c = self.counters
        with c.lock:
            c.intervals.append(interval_ns)
            c.active += 1
            c.most_active = max(c.most_active, c.active)
        try:
            path = subscription.path
            yield self._notification(1, path)
            yield gnmi_pb2.SubscribeResponse(sync_response=True)
            sent = 0
            while context.is_active() and (self.end_after == 0 or sent < self.end_after):
                time.sleep(interval_ns / 1e9)
                yield self._notification(time.time_ns(), path)
                sent += 1
        finally:
            with c.lock:
                c.active -= 1

    @staticmethod
    def _notification(timestamp_ns: int, path: Any) -> Any:
        update = gnmi_pb2.Update(path=path, val=gnmi_pb2.TypedValue(uint_val=12345))
        notification = gnmi_pb2.Notification(timestamp=timestamp_ns, update=[update])
        return gnmi_pb2.SubscribeResponse(update=notification)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("cert")
    parser.add_argument("key")
    parser.add_argument("--hold-for", type=int, default=1)
    parser.add_argument("--end-after", type=int, default=0)
    args = parser.parse_args()
    with open(args.cert, "rb") as cert, open(args.key, "rb") as key:
        credentials = grpc.ssl_server_credentials([(key.read(), cert.read())])
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=64))
    gnmi_pb2_grpc.add_gNMIServicer_to_server(Servicer(args.hold_for, args.end_after), server)
    port = server.add_secure_port("127.0.0.1:0", credentials)
    server.start()
    print(port, flush=True)
    sys.stdin.read()  # until the test closes our stdin (or kills us)
    server.stop(grace=None)


if __name__ == "__main__":
    main()
