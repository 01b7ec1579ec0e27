"""QUIC on the wire: what its datagrams count (connections, round trips, bytes) and how the time
split reads them, on the recorded aioquic exchanges (captures/quic-aioquic.json, made by
captures/record_quic.py), on hand-made datagrams, and on a real loopback capture (needs
CAP_NET_RAW: root in the runner's image; elsewhere skipped with the reason, failed under
CI)."""

import json
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from bench_runner.protocols import quic
from bench_runner.roundtrips import earliest_answer_ns
from bench_runner.wire.bpf import Protocol
from bench_runner.wire.capture import WireCapture, open_capture
from bench_runner.wire.model import WireIteration
from bench_runner.wire.quic_flows import QuicFlows
from bench_runner.wire.tally import Tally
from bench_runner.wire.timeline import Packet, Span, Timeline, TimeSplit
from prerequisites import missing

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "captures" / "quic-aioquic.json").read_text()
)
KEPT = 46
"""Of a datagram's payload, what the counting capture keeps at least (``bpf.SNAPLEN``)."""
HEADERS = 28
"""IPv4 and UDP headers."""
LOOPBACK_RTT_NS = 50_000


def exchange(profile: str, what: str) -> dict[str, Any]:
    found: dict[str, Any] = next(
        item
        for item in RECORDED["exchanges"]
        if item["profile"] == profile and item["what"].startswith(what)
    )
    return found


def counted(
    recorded: dict[str, Any], every_datagram_a_send: bool = False
) -> tuple[WireIteration, TimeSplit]:
    """An exchange's counts and time split as the capture makes them: the datagrams between
    its start and end counted, every datagram teaching the connection IDs."""
    flows = QuicFlows()
    tally = Tally(earliest_answer_ns(recorded["rtt_ns"]))
    start, end = recorded["start_ns"], recorded["end_ns"]
    timeline = Timeline(recorded["rtt_ns"], Span(start, end, end - start))
    for time_ns, outgoing, port, data, length in recorded["datagrams"]:
        head = bytes.fromhex(data)[:KEPT]
        connect, event = flows.datagram(outgoing, port, head, length)
        event = event or every_datagram_a_send
        if start <= time_ns <= end:
            tally.add_datagram(outgoing, length, HEADERS, 1, time_ns, connect=connect, event=event)
        timeline.add(Packet(time_ns, outgoing, 0, length if event else 0, 0, 0, port))
    return tally.result(), timeline.split()


@pytest.mark.parametrize(
    ("profile", "what", "round_trips", "connects"),
    [
        ("regional", "a connection per request", 2, 1),  # the handshake, the request
        ("regional", "three requests on a kept connection", 3, 0),
        ("regional", "a resumed connection, its request as 0-RTT", 1, 1),
        ("regional", "a connection per request, the server sending a Retry", 3, 1),
        ("local", "a connection per request", 2, 1),
        ("local", "three requests on a kept connection", 3, 0),
    ],
)
def test_recorded_exchanges_count_the_round_trips_the_protocol_needs(
    profile: str, what: str, round_trips: int, connects: int
) -> None:
    recorded = exchange(profile, what)
    counts, split = counted(recorded)
    assert (counts.round_trips, counts.connects) == (round_trips, connects)
    # One RTT at most per wait; at regional each wait lasted at least that long.
    one_rtt_per_wait_ms = round_trips * recorded["rtt_ns"] / 1e6
    assert split.network_ms <= one_rtt_per_wait_ms + 1e-9
    if profile == "regional":
        assert split.network_ms == pytest.approx(one_rtt_per_wait_ms)
    assert split.stalls == 0
    assert split.stall_ms == 0.0
    assert split.unaccounted_ms == pytest.approx(0.0, abs=1e-9)
    assert split.device_ms > 0
    assert split.client_ms > 0


def test_bytes_are_the_udp_payloads() -> None:
    recorded = exchange("regional", "three requests on a kept connection")
    counts, _ = counted(recorded)
    inside = [
        (outgoing, length)
        for time_ns, outgoing, _, _, length in recorded["datagrams"]
        if recorded["start_ns"] <= time_ns <= recorded["end_ns"]
    ]
    assert counts.bytes_out == sum(length for outgoing, length in inside if outgoing)
    assert counts.bytes_in == sum(length for outgoing, length in inside if not outgoing)
    assert counts.packets == len(inside)
    assert counts.ip_bytes_out == counts.bytes_out + HEADERS * counts.packets_out


def test_acknowledgments_counted_as_sends_would_add_round_trips_at_local() -> None:
    """At ``local`` every change of direction counts: aioquic's acknowledgment of the
    answer's first datagram, sent before the rest arrived, would end a wait of its own."""
    recorded = exchange("local", "a connection per request")
    assert counted(recorded)[0].round_trips == 2
    assert counted(recorded, every_datagram_a_send=True)[0].round_trips > 2


def test_the_earliest_answer_rule_covers_acknowledgments_at_regional() -> None:
    recorded = exchange("regional", "three requests on a kept connection")
    assert counted(recorded, every_datagram_a_send=True)[0].round_trips == 3


def initial(dcid: bytes, scid: bytes, version: int = quic.VERSION_1, kind: int = 0) -> bytes:
    """The first bytes of a long-header packet."""
    first = quic.LONG_HEADER | quic.FIXED_BIT | kind << 4
    return (
        bytes([first])
        + version.to_bytes(4, "big")
        + bytes([len(dcid)])
        + dcid
        + bytes([len(scid)])
        + scid
    )


CLIENT_ID, FIRST_DCID, SERVER_ID = b"c" * 8, b"d" * 8, b"s" * 4


def test_a_connection_starts_with_a_new_destination_id() -> None:
    flows = QuicFlows()
    first = initial(FIRST_DCID, CLIENT_ID)
    assert flows.datagram(True, 40000, first, 1200) == (True, True)
    assert flows.datagram(True, 40000, first, 1200) == (False, True)  # retransmitted
    assert flows.datagram(False, 40000, initial(CLIENT_ID, SERVER_ID), 1200) == (False, True)
    # Later Initials go to the ID the server chose: the same connection.
    assert flows.datagram(True, 40000, initial(SERVER_ID, CLIENT_ID), 1200) == (False, True)
    # Another connection on the same socket, and the same first ID on another port.
    assert flows.datagram(True, 40000, initial(b"e" * 8, CLIENT_ID), 1200) == (True, True)
    assert flows.datagram(True, 40001, first, 1200) == (True, True)


def test_a_retry_or_another_version_starts_no_connection() -> None:
    flows = QuicFlows()
    assert flows.datagram(True, 40000, initial(FIRST_DCID, CLIENT_ID), 1200)[0]
    retry = initial(CLIENT_ID, SERVER_ID, kind=3)
    assert flows.datagram(False, 40000, retry, 100) == (False, True)
    assert flows.datagram(True, 40000, initial(SERVER_ID, CLIENT_ID), 1200) == (False, True)
    probe = initial(b"p" * 8, b"q" * 8, version=quic.reserved_version(0))
    assert flows.datagram(True, 40000, probe, 1200) == (False, True)


def test_a_client_datagram_too_short_for_a_request_is_no_send() -> None:
    flows = QuicFlows()
    short = bytes([0x41]) + SERVER_ID
    # The server's connection ID length is not known yet: every datagram is a send.
    assert flows.datagram(True, 40000, short, 20) == (False, True)
    flows.datagram(False, 40000, initial(CLIENT_ID, SERVER_ID), 1200)
    smallest = quic.SMALLEST_REQUEST_PACKET + len(SERVER_ID)
    assert flows.datagram(True, 40000, short, smallest - 1) == (False, False)
    assert flows.datagram(True, 40000, short, smallest) == (False, True)
    assert flows.datagram(False, 40000, bytes([0x41]) + CLIENT_ID, 20) == (False, True)
    assert flows.datagram(True, 40001, short, 20) == (False, True)  # another socket's


class _QuicLikeServer:
    """Answers each datagram on loopback: a long header (the server's Initial) to a long
    header, ``ANSWER_BYTES`` to a request, nothing to a datagram too short to be one."""

    ANSWER_BYTES = 500

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(5)
        self.port: int = self.sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                data, client = self.sock.recvfrom(65535)
            except OSError:
                return
            if quic.is_long_header(data):
                self.sock.sendto(initial(CLIENT_ID, SERVER_ID).ljust(1200, b"\0"), client)
            elif len(data) >= quic.SMALLEST_REQUEST_PACKET + len(SERVER_ID):
                self.sock.sendto(bytes([0x41]) + CLIENT_ID + bytes(self.ANSWER_BYTES - 9), client)

    def close(self) -> None:
        self.sock.close()
        self._thread.join(5)


def _udp_capture(port: int) -> WireCapture:
    capture, reason = open_capture("127.0.0.1", (port,), LOOPBACK_RTT_NS, Protocol.UDP)
    if capture is None:
        missing(f"no packet capture here: {reason}")
    return capture


def test_a_loopback_capture_counts_the_datagrams() -> None:
    server = _QuicLikeServer()
    capture = _udp_capture(server.port)
    try:
        assert capture.filter == f"udp and host 127.0.0.1 and (port {server.port})"
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
            client.settimeout(5)
            client.connect(("127.0.0.1", server.port))
            capture.mark()
            client.send(initial(FIRST_DCID, CLIENT_ID).ljust(1200, b"\0"))
            client.recv(65535)
            client.send(bytes([0x41]) + SERVER_ID + bytes(95))  # a request
            client.recv(65535)
            client.send(bytes([0x41]) + SERVER_ID + bytes(25))  # an acknowledgment
            index = capture.mark()
        segments = capture.finish()
        assert segments is not None, capture.error
        counts = segments[index].counts()
        assert counts.connects == 1
        assert counts.round_trips == 2
        assert (counts.packets_out, counts.packets_in) == (3, 2)
        assert (counts.bytes_out, counts.bytes_in) == (1200 + 100 + 30, 1200 + 500)
        if counts.segments_out is not None:
            assert counts.ip_bytes_out == counts.bytes_out + 3 * HEADERS
        hellos, drops = capture.hellos()
        assert hellos is not None
        assert drops == 0
        assert [(packet.outgoing, packet.length) for packet in hellos] == [
            (True, 1200),
            (False, 1200),
        ]
        assert capture.drops == 0
    finally:
        capture.close()
        server.close()


UDP_SEGMENT = 103
"""setsockopt level SOL_UDP: send one buffer as datagrams of this size (GSO)."""


def test_a_gso_aggregate_is_its_datagrams() -> None:
    """Two long-header datagrams sent in one GSO buffer reach the packet socket as one
    aggregate: counted as two segments where the kernel describes UDP GSO, and handed to
    the handshakes' decoder as two datagrams."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sink:
        sink.bind(("127.0.0.1", 0))
        port = sink.getsockname()[1]
        capture = _udp_capture(port)
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
                try:
                    client.setsockopt(socket.SOL_UDP, UDP_SEGMENT, 1200)
                except OSError as exc:
                    missing(f"no UDP GSO here: {exc}")
                client.connect(("127.0.0.1", port))
                capture.mark()
                datagram = initial(FIRST_DCID, CLIENT_ID).ljust(1200, b"\0")
                client.send(datagram + datagram[:700])
                index = capture.mark()
            segments = capture.finish()
            assert segments is not None, capture.error
            counts = segments[index].counts()
            assert counts.bytes_out == 1900
            hellos, _ = capture.hellos()
            assert hellos is not None
            if capture.segments_known:
                assert (counts.packets_out, counts.segments_out) == (1, 2)
                assert [packet.length for packet in hellos] == [1200, 700]
                assert hellos[1].payload == datagram[:700]
            else:
                assert counts.segments_out is None
                assert capture.segments_caveat() is not None
        finally:
            capture.close()
