"""Packets -> round trips, packets, segments and bytes, on scripted traces (no sockets)."""

import pytest

from bench_runner.roundtrips import Event, count_round_trips
from bench_runner.wire.model import WireIteration, summarize_wire
from bench_runner.wire.tally import TCP_ACK, TCP_SYN, Tally, wire_segments

SYN, SYN_ACK, ACK, PSH_ACK, FIN_ACK = TCP_SYN, TCP_SYN | TCP_ACK, TCP_ACK, 0x18, 0x11
OUT, IN = True, False
HEADERS = 52  # IPv4 20 + TCP 32 (timestamps)

Packet = tuple[bool, int, int]  # outgoing, TCP flags, payload


def tally(packets: list[Packet], segments: int | None = 1) -> WireIteration:
    counts = Tally()
    for outgoing, flags, payload in packets:
        counts.add(outgoing, flags, payload, HEADERS, segments)
    return counts.result()


HANDSHAKE: list[Packet] = [(OUT, SYN, 0), (IN, SYN_ACK, 0), (OUT, ACK, 0)]


def test_a_connect_and_one_request() -> None:
    counts = tally(
        [
            *HANDSHAKE,
            (OUT, PSH_ACK, 100),
            (IN, ACK, 0),
            (IN, PSH_ACK, 2000),
            (OUT, ACK, 0),
            (OUT, FIN_ACK, 0),
            (IN, FIN_ACK, 0),
            (OUT, ACK, 0),
        ]
    )
    assert counts.round_trips == 2
    assert counts.connects == 1
    assert (counts.packets_out, counts.packets_in) == (6, 4)
    assert (counts.bytes_out, counts.bytes_in) == (100, 2000)
    assert (counts.ip_bytes_out, counts.ip_bytes_in) == (100 + 6 * HEADERS, 2000 + 4 * HEADERS)


def test_pure_acks_do_not_change_direction() -> None:
    # The client's ACKs of a long answer are not sends: one round trip, not one per ACK.
    answer: list[Packet] = [(IN, PSH_ACK, 1448), (OUT, ACK, 0)] * 10
    assert tally([(OUT, PSH_ACK, 50), *answer]).round_trips == 1


def test_server_speaks_first_for_free() -> None:
    # SSH: the server's version line after the connect is not a round trip of its own.
    assert (
        tally([*HANDSHAKE, (IN, PSH_ACK, 40), (OUT, PSH_ACK, 40), (IN, PSH_ACK, 900)]).round_trips
        == 2
    )


@pytest.mark.parametrize(
    "events",
    [
        [Event.CONNECT, Event.SEND, Event.RECV, Event.SEND, Event.SEND, Event.RECV, Event.RECV],
        [Event.CONNECT, Event.RECV, Event.SEND, Event.RECV, Event.CONNECT, Event.SEND, Event.RECV],
        [Event.SEND, Event.RECV] * 5,
    ],
)
def test_same_definition_as_the_socket_trace(events: list[Event]) -> None:
    packets: list[Packet] = []
    for event in events:
        if event is Event.CONNECT:
            packets += HANDSHAKE
        else:
            packets.append((event is Event.SEND, PSH_ACK, 10))
    assert tally(packets).round_trips == count_round_trips(events)


def test_data_the_device_sent_before_the_request_arrived_is_no_answer() -> None:
    """On the kernel's stamps: a receive 2 ms after a send at 30 ms RTT left the device
    before the send reached it; the answer comes a round trip after the send."""
    ms = 1_000_000
    counts = Tally(answer_after_ns=27 * ms)
    packets = [*HANDSHAKE, (OUT, PSH_ACK, 52), (IN, PSH_ACK, 628), (IN, PSH_ACK, 44)]
    for at_ms, (outgoing, flags, payload) in zip((0, 30, 30, 31, 33, 61), packets, strict=True):
        counts.add(outgoing, flags, payload, HEADERS, 1, at_ms * ms)
    assert counts.result().round_trips == 2


def test_an_incoming_syn_is_not_a_connect_of_ours() -> None:
    counts = tally([(IN, SYN, 0), (OUT, SYN_ACK, 0)])
    assert (counts.connects, counts.round_trips) == (0, 0)


def test_aggregates_count_their_wire_segments() -> None:
    counts = Tally()
    counts.add(False, PSH_ACK, 65160, HEADERS, wire_segments(65160, 1448, gso=True))
    counts.add(True, ACK, 0, HEADERS, wire_segments(0, 0, gso=False))
    result = counts.result()
    assert (result.packets_in, result.segments_in) == (1, 45)
    assert result.ip_bytes_in == 65160 + 45 * HEADERS
    assert (result.packets_out, result.segments_out) == (1, 1)


@pytest.mark.parametrize(
    ("payload", "size", "gso", "expected"),
    [
        (1448, 1448, True, 1),
        (1449, 1448, True, 2),
        (65160, 1448, True, 45),
        (3000, 1448, False, 1),
        (3000, 0, True, 1),
        (0, 1448, True, 1),
    ],
)
def test_wire_segments(payload: int, size: int, gso: bool, expected: int) -> None:
    assert wire_segments(payload, size, gso) == expected


def test_unknown_segment_sizes_leave_segments_null_not_zero() -> None:
    counts = tally([(OUT, PSH_ACK, 10), (IN, PSH_ACK, 10)], segments=None)
    assert counts.segments_out is None
    assert counts.ip_bytes_in is None
    assert counts.packets == 2
    assert counts.bytes == 20


def test_summary_is_the_median_of_each_field() -> None:
    runs = [tally([(OUT, PSH_ACK, n), (IN, PSH_ACK, 10 * n)]) for n in (1, 2, 9)]
    summary = summarize_wire(runs)
    assert summary is not None
    assert summary["bytes_out"] == 2
    assert summary["bytes_in"] == 20
    assert summary["round_trips"] == 1
    assert summarize_wire([]) is None
    unknown = summarize_wire([tally([(OUT, PSH_ACK, 1)], segments=None)])
    assert unknown is not None
    assert unknown["segments_out"] is None
