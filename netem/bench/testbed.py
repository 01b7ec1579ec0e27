"""Two network namespaces joined by a veth pair: the test bed of the tests, the bench, the VM check.

"client" 198.19.250.1 <-> "device" 198.19.250.2 (interface eth0, like the device container).
Also runnable as a script inside a namespace (netem_ctl importable: installed, or PYTHONPATH=src):
  python3 bench/testbed.py serve PORT...            TCP and UDP servers for the probes below
  python3 bench/testbed.py probe KIND HOST PORT N   prints a JSON list of milliseconds
                                                    ("oneway", "udp-oneway": of [toward, back]
                                                    pairs; "udp-order": [answered, inversions])
"connect-spin" and "echo-spin" busy-poll instead of sleeping in the kernel: after idling through
the delay, a sleeping probe's own wake-up (tens to hundreds of microseconds on a VM) would be
counted as engine error.
Stdlib only: it runs in the netem VM too.
"""

import json
import os
import select
import socket
import socketserver
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Self

from netem_ctl.engines.runner import CommandRunner

CLIENT_NS = "tl-client"
DEVICE_NS = "tl-device"
CLIENT_ADDR = "198.19.250.1"
DEVICE_ADDR = "198.19.250.2"
DEVICE_INTERFACE = "eth0"
CLIENT_INTERFACE = "tl-client0"
ECHO_BYTES = 64
PROBE_GAP_S = 0.01
SEGMENT_SOURCE_PORT = 40000
SEGMENT_GAP_S = 0.0001
BURST_BYTES = 1200  # a full QUIC packet
ORDER_GAP_S = 0.0005  # far below a jitter of milliseconds: jittered datagrams overtake
ORDER_DRAIN_S = 3.0
# Asked of the kernel, which doubles it: a fraction of a burst of 200 such datagrams fits.
BURST_SNDBUF = 65536
SCRIPT = str(Path(__file__).resolve())
# netem_ctl for the processes started in the namespaces, where it is not installed (the VM).
SRC_DIR = str(Path(__file__).resolve().parent.parent / "src")


class Testbed:
    __test__ = False  # not a pytest test class

    def __init__(self) -> None:
        self.device = CommandRunner(("ip", "netns", "exec", DEVICE_NS))
        self.client = CommandRunner(("ip", "netns", "exec", CLIENT_NS))
        self._servers: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Self:
        self.teardown()
        host = CommandRunner()
        host.run_all(
            [
                ["ip", "netns", "add", CLIENT_NS],
                ["ip", "netns", "add", DEVICE_NS],
                ["ip", "-n", CLIENT_NS, "link", "set", "lo", "up"],
                ["ip", "-n", DEVICE_NS, "link", "set", "lo", "up"],
            ]
        )
        self.link()
        return self

    def link(self) -> None:
        """The veth pair between the namespaces (device side eth0), addressed and up."""
        CommandRunner().run_all(
            [
                [
                    "ip",
                    "link",
                    "add",
                    CLIENT_INTERFACE,
                    "netns",
                    CLIENT_NS,
                    "type",
                    "veth",
                    "peer",
                    "name",
                    DEVICE_INTERFACE,
                    "netns",
                    DEVICE_NS,
                ],
                [
                    "ip",
                    "-n",
                    CLIENT_NS,
                    "addr",
                    "add",
                    f"{CLIENT_ADDR}/24",
                    "dev",
                    CLIENT_INTERFACE,
                ],
                [
                    "ip",
                    "-n",
                    DEVICE_NS,
                    "addr",
                    "add",
                    f"{DEVICE_ADDR}/24",
                    "dev",
                    DEVICE_INTERFACE,
                ],
                ["ip", "-n", CLIENT_NS, "link", "set", CLIENT_INTERFACE, "up"],
                ["ip", "-n", DEVICE_NS, "link", "set", DEVICE_INTERFACE, "up"],
            ]
        )

    def unlink(self) -> None:
        """Delete the veth pair, as Docker removes eth0 when the device container stops."""
        self.device.run(["ip", "link", "del", DEVICE_INTERFACE])

    def __exit__(self, *exc: object) -> None:
        self.teardown()

    def teardown(self) -> None:
        for server in self._servers:
            server.kill()
            server.wait()
        self._servers.clear()
        for ns in (CLIENT_NS, DEVICE_NS):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    def serve(self, *ports: int) -> None:
        """TCP and UDP servers in the device namespace; returns once they accept connections."""
        server = subprocess.Popen(
            [*self.device.prefix, sys.executable, SCRIPT, "serve", *map(str, ports)],
            env=python_env(),
            stdout=subprocess.PIPE,
        )
        assert server.stdout is not None
        server.stdout.readline()  # "ready"
        self._servers.append(server)

    def one_way(self, port: int, count: int, protocol: str = "tcp") -> list[tuple[float, float]]:
        """Milliseconds client->device and device->client per message (over TCP or UDP); both
        namespaces share the host's monotonic clock, so the device's receive stamp splits each
        round trip."""
        kind = "oneway" if protocol == "tcp" else f"{protocol}-oneway"
        pairs: list[list[float]] = self._run_probe(kind, port, count)
        return [(toward, back) for toward, back in pairs]

    def probe(self, kind: str, port: int, count: int, host: str = DEVICE_ADDR) -> list[float]:
        """Run a probe from the client namespace; milliseconds per sample."""
        samples: list[float] = self._run_probe(kind, port, count, host)
        return samples

    def probe_from_device(self, kind: str, port: int, count: int) -> list[float]:
        """Run a probe from the device namespace toward the client; milliseconds per sample."""
        samples: list[float] = self._run_probe(kind, port, count, CLIENT_ADDR, self.device)
        return samples

    def _run_probe(
        self,
        kind: str,
        port: int,
        count: int,
        host: str = DEVICE_ADDR,
        namespace: CommandRunner | None = None,
    ) -> Any:
        """The JSON a probe prints; run in the client namespace unless told otherwise."""
        argv = ["probe", kind, host, str(port), str(count)]
        result = subprocess.run(
            [*(namespace or self.client).prefix, sys.executable, SCRIPT, *argv],
            env=python_env(),
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        return json.loads(result.stdout)


def python_env() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": f"{SRC_DIR}:{path}" if path else SRC_DIR}


class _ProbeHandler(socketserver.BaseRequestHandler):
    """First line picks the mode: "echo", "stamp" (answer each message with our monotonic clock),
    "send N" (we send N bytes), "recv N" (we read N, answer "ok")."""

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = sock.makefile("rb")
        command = reader.readline().split()
        if not command:
            return
        if command[0] == b"echo":
            while block := reader.read1(65536):
                sock.sendall(block)
        elif command[0] == b"stamp":
            while reader.read(ECHO_BYTES):
                sock.sendall(struct.pack("!q", time.monotonic_ns()))
        elif command[0] == b"send":
            remaining = int(command[1])
            chunk = b"x" * 65536
            while remaining > 0:
                sock.sendall(chunk[:remaining])
                remaining -= len(chunk)
        elif command[0] == b"recv":
            remaining = int(command[1])
            while remaining > 0 and (block := reader.read1(65536)):
                remaining -= len(block)
            sock.sendall(b"ok\n")


class _Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


class _StampHandler(socketserver.BaseRequestHandler):
    """UDP: answers each datagram with its first 8 bytes (the sender's sequence number) and our
    monotonic clock at receipt."""

    def handle(self) -> None:
        received = time.monotonic_ns()
        data, sock = self.request
        sock.sendto(data[:8] + struct.pack("!q", received), self.client_address)


def serve(ports: list[int]) -> None:
    servers: list[socketserver.BaseServer] = []
    for port in ports:
        servers += [
            _Server(("0.0.0.0", port), _ProbeHandler),
            socketserver.UDPServer(("0.0.0.0", port), _StampHandler),
        ]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print("ready", flush=True)
    threading.Event().wait()


def probe(kind: str, host: str, port: int, count: int) -> list[float] | list[list[float]]:
    if kind in ("connect", "connect-spin"):
        return _connect_times(host, port, count, spin=kind.endswith("-spin"))
    if kind == "connect-once":
        return _connect_times(host, port, 1, timeout_s=2)
    if kind in ("echo", "echo-spin"):
        return _echo_times(host, port, count, spin=kind.endswith("-spin"))
    if kind == "oneway":
        return _one_way_times(host, port, count)
    if kind == "udp-oneway":
        return _udp_one_way_times(host, port, count)
    if kind == "download":
        return [_transfer_time(host, port, f"send {count}\n", count)]
    if kind == "upload":
        return [_transfer_time(host, port, f"recv {count}\n", count)]
    if kind == "segments":
        return [_segments_time(host, port, count)]
    if kind == "datagrams":
        return [_datagrams_time(host, port, count)]
    if kind == "udp-burst":
        return [_udp_burst_time(host, port, count)]
    if kind == "udp-order":
        return _udp_order(host, port, count)
    raise ValueError(f"unknown probe {kind!r}")


def _connect_times(
    host: str, port: int, count: int, timeout_s: float = 30, spin: bool = False
) -> list[float]:
    """One round trip each: SYN out, SYN-ACK back (the device's kernel answers)."""
    samples = []
    for _ in range(count):
        with socket.socket() as sock:
            start = time.perf_counter()
            if spin:
                _spin_connect(sock, (host, port), start + timeout_s)
            else:
                sock.settimeout(timeout_s)
                sock.connect((host, port))
            samples.append((time.perf_counter() - start) * 1000)
        time.sleep(PROBE_GAP_S)
    return samples


def _spin_connect(sock: socket.socket, address: tuple[str, int], deadline: float) -> None:
    sock.setblocking(False)
    sock.connect_ex(address)
    while not select.select([], [sock], [], 0)[1]:
        if time.perf_counter() > deadline:
            raise TimeoutError(f"connect to {address} timed out")
    if error := sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
        raise OSError(error, os.strerror(error))


def _echo_times(host: str, port: int, count: int, spin: bool = False) -> list[float]:
    """Application-level ping over one TCP_NODELAY connection: ICMP ping, but on the TCP port."""
    message = b"p" * ECHO_BYTES
    samples = []
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(b"echo\n")
        if spin:
            sock.setblocking(False)
        for _ in range(count):
            start = time.perf_counter()
            sock.sendall(message)
            received = 0
            while received < ECHO_BYTES:
                try:
                    chunk = sock.recv(ECHO_BYTES - received)
                except BlockingIOError:
                    if time.perf_counter() - start > 30:
                        raise TimeoutError("echo timed out") from None
                    continue
                if not chunk:
                    raise ConnectionError("the echo server closed the connection")
                received += len(chunk)
            samples.append((time.perf_counter() - start) * 1000)
            time.sleep(PROBE_GAP_S)
    return samples


def _one_way_times(host: str, port: int, count: int) -> list[list[float]]:
    """[toward, back] milliseconds per message: send, device stamps its receipt, reply arrives."""
    message = b"s" * ECHO_BYTES
    samples = []
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(b"stamp\n")
        reader = sock.makefile("rb")
        for _ in range(count):
            sent = time.monotonic_ns()
            sock.sendall(message)
            (received,) = struct.unpack("!q", reader.read(8))
            back = time.monotonic_ns()
            samples.append([(received - sent) / 1e6, (back - received) / 1e6])
            time.sleep(PROBE_GAP_S)
    return samples


def _udp_one_way_times(host: str, port: int, count: int) -> list[list[float]]:
    """As `oneway`, one UDP datagram each way per sample; a reply to an earlier datagram (late
    past its timeout) is skipped by its sequence number."""
    samples = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(30)
        sock.connect((host, port))
        for sequence in range(count):
            message = struct.pack("!q", sequence).ljust(ECHO_BYTES, b"u")
            sent = time.monotonic_ns()
            sock.send(message)
            while True:
                answered, received = struct.unpack("!qq", sock.recv(16))
                if answered == sequence:
                    break
            back = time.monotonic_ns()
            samples.append([(received - sent) / 1e6, (back - received) / 1e6])
            time.sleep(PROBE_GAP_S)
    return samples


def _datagrams_time(host: str, port: int, count: int) -> float:
    """`count` UDP datagrams of ECHO_BYTES, one packet each; the answers are not read."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        start = time.perf_counter()
        for _ in range(count):
            sock.sendto(b"d" * ECHO_BYTES, (host, port))
            time.sleep(SEGMENT_GAP_S)
        return (time.perf_counter() - start) * 1000


def _udp_burst_time(host: str, port: int, count: int) -> float:
    """Milliseconds to hand `count` datagrams of BURST_BYTES, sent from UDP `port` to the same
    port on `host`, to a socket whose send buffer holds only a fraction of them: a sender whose
    datagrams stay charged to the buffer while they are held somewhere waits for them to leave."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, BURST_SNDBUF)
        sock.bind(("0.0.0.0", port))
        start = time.perf_counter()
        for _ in range(count):
            sock.sendto(b"b" * BURST_BYTES, (host, port))
        return (time.perf_counter() - start) * 1000


def _udp_order(host: str, port: int, count: int) -> list[float]:
    """[answered, inversions]: `count` numbered datagrams ORDER_GAP_S apart, answered one by one
    by the device in the order they reach it; an inversion is an answer whose number is below
    one already seen (it was overtaken on the way there or back)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.connect((host, port))
        for sequence in range(count):
            sock.send(struct.pack("!q", sequence).ljust(ECHO_BYTES, b"o"))
            time.sleep(ORDER_GAP_S)
        sock.settimeout(ORDER_DRAIN_S)
        answered = inversions = 0
        highest = -1
        try:
            while answered < count:
                (sequence,) = struct.unpack("!q", sock.recv(16)[:8])
                answered += 1
                inversions += sequence < highest
                highest = max(highest, sequence)
        except TimeoutError:
            pass
        return [float(answered), float(inversions)]


def _segments_time(host: str, port: int, count: int) -> float:
    """`count` bare TCP ACK segments from a raw socket: one packet each, whatever TCP's state.

    They belong to no connection (the device answers with RST) and carry no valid checksum:
    netfilter counts them before TCP would discard them, which is all a packet counter needs.
    """
    header = struct.pack("!HHIIBBHHH", SEGMENT_SOURCE_PORT, port, 0, 0, 5 << 4, 0x10, 65535, 0, 0)
    with socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP) as sock:
        start = time.perf_counter()
        for _ in range(count):
            sock.sendto(header, (host, 0))
            time.sleep(SEGMENT_GAP_S)
        return (time.perf_counter() - start) * 1000


def _transfer_time(host: str, port: int, request: str, size: int) -> float:
    """Milliseconds from the request to the last byte (download) or to the server's receipt
    (upload)."""
    with socket.create_connection((host, port), timeout=60) as sock:
        start = time.perf_counter()
        sock.sendall(request.encode())
        if request.startswith("send"):
            remaining = size
            while remaining > 0 and (block := sock.recv(65536)):
                remaining -= len(block)
        else:
            chunk = b"y" * 65536
            sent = 0
            while sent < size:
                sock.sendall(chunk[: size - sent])
                sent += min(len(chunk), size - sent)
            sock.recv(16)
        return (time.perf_counter() - start) * 1000


def main(argv: list[str]) -> None:
    if argv[:1] == ["serve"]:
        serve([int(port) for port in argv[1:]])
    elif argv[:1] == ["probe"] and len(argv) == 5:
        print(json.dumps(probe(argv[1], argv[2], int(argv[3]), int(argv[4]))))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
