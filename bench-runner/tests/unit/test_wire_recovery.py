"""Loss recovery told from the runner's side of the path: each rule on hand-made segments, as
Linux sends them (RFC 6298's timers, RFC 2883's D-SACK, RFC 7323's timestamps)."""

import struct

import pytest

from bench_runner.wire.recovery import (
    NO_OPTIONS,
    Recovery,
    RecoveryTracker,
    TcpOptions,
    is_dsack,
    parse_options,
)
from bench_runner.wire.tally import Tally

MS = 1_000_000
SYN, ACK, PSH_ACK, SYN_ACK = 0x02, 0x10, 0x18, 0x12
RTT = 30 * MS
PORT = 40000


class Connection:
    """One connection's packets through a tracker, with consistent sequence numbers."""

    def __init__(self, tracker: RecoveryTracker | None = None, isn: int = 1000) -> None:
        self.tracker = tracker or RecoveryTracker(RTT)
        self.isn = isn
        self.sent = isn + 1
        self.received = 5001
        self.tsval = 100

    def open(self, at_ms: float = 0) -> "Connection":
        assert self.syn(at_ms) is Recovery.NONE
        assert self.packet(at_ms + 30, False, SYN_ACK, 0, 5000) is Recovery.NONE
        return self

    def syn(self, at_ms: float) -> Recovery:
        return self.packet(at_ms, True, SYN, 0, self.isn)

    def packet(
        self,
        at_ms: float,
        outgoing: bool,
        flags: int,
        payload: int,
        seq: int,
        ack: int = 0,
        options: TcpOptions = NO_OPTIONS,
    ) -> Recovery:
        return self.tracker.classify(
            int(at_ms * MS), outgoing, flags, payload, seq, ack, PORT, options
        )

    def send(self, at_ms: float, payload: int = 100, seq: int | None = None) -> Recovery:
        start = self.sent if seq is None else seq
        self.sent = max(self.sent, start + payload)
        return self.packet(at_ms, True, PSH_ACK, payload, start, self.received)

    def receive(
        self, at_ms: float, payload: int = 100, seq: int | None = None, tsval: int | None = None
    ) -> Recovery:
        start = self.received if seq is None else seq
        self.received = max(self.received, start + payload)
        stamp = self.tsval + int(at_ms) if tsval is None else tsval
        return self.packet(at_ms, False, PSH_ACK, payload, start, self.sent, TcpOptions(stamp))

    def ack_in(self, at_ms: float, sack: tuple[tuple[int, int], ...] = ()) -> Recovery:
        return self.packet(at_ms, False, ACK, 0, self.received, self.sent, TcpOptions(None, sack))


def test_first_transmissions_are_nothing_to_recover() -> None:
    connection = Connection().open()
    assert connection.send(31) is Recovery.NONE
    assert connection.receive(62) is Recovery.NONE
    assert connection.send(63) is Recovery.NONE


def test_a_request_sent_again_after_200_ms_of_silence_is_a_timeout() -> None:
    """The answer (or the request) was lost: nothing came back, Linux's RTO (at least
    200 ms) sends the request again."""
    connection = Connection().open()
    request = connection.sent
    connection.send(31)
    assert connection.send(261, seq=request) == Recovery.RETRANSMIT | Recovery.TIMEOUT


def test_a_segment_sent_again_on_duplicate_acks_is_fast_recovery() -> None:
    connection = Connection().open()
    first = connection.sent
    for at in (31, 31.1, 31.2, 31.3):
        connection.send(at, 1000)
    connection.ack_in(61.2, sack=((first + 1000, first + 3000),))
    assert connection.send(61.25, 1000, seq=first) is Recovery.RETRANSMIT


def test_a_syn_sent_again_is_a_syn_retry_and_a_timeout() -> None:
    connection = Connection()
    assert connection.syn(0) is Recovery.NONE
    assert connection.syn(1000) == Recovery.RETRANSMIT | Recovery.SYN_RETRY | Recovery.TIMEOUT
    assert connection.packet(1030, False, SYN_ACK, 0, 5000) is Recovery.NONE


def test_a_new_connection_on_a_port_used_before_starts_over() -> None:
    """Hundreds of fresh connects reuse some ephemeral ports: a SYN with another initial
    sequence number is a new connection, not a retry."""
    tracker = RecoveryTracker(RTT)
    Connection(tracker, isn=1000).open().send(31)
    assert Connection(tracker, isn=900_000).syn(2000) is Recovery.NONE


def test_a_syn_ack_received_again_is_a_syn_retry() -> None:
    connection = Connection().open()
    assert connection.packet(1030, False, SYN_ACK, 0, 5000) == (
        Recovery.RETRANSMIT | Recovery.SYN_RETRY
    )


def test_a_hole_filled_by_a_later_stamp_is_a_retransmission() -> None:
    """Segment 2 of 3 was lost on the path: 3 arrives, the runner SACKs it, the device
    sends 2 again one RTT later, stamped then."""
    connection = Connection().open()
    connection.send(31)
    first = connection.received
    connection.receive(62, 1000, seq=first, tsval=162)
    connection.receive(62.1, 1000, seq=first + 2000, tsval=162)
    connection.packet(62.2, True, ACK, 0, connection.sent, first + 1000)
    assert connection.receive(92.3, 1000, seq=first + 1000, tsval=192) is Recovery.RETRANSMIT


def test_a_hole_filled_by_an_earlier_stamp_is_reordering() -> None:
    """Jitter without a kept order: the later segment overtook the earlier one, which
    still carries its own (earlier or equal) send stamp."""
    connection = Connection().open()
    connection.send(31)
    first = connection.received
    connection.receive(62, 1000, seq=first + 1000, tsval=162)
    assert connection.receive(63, 1000, seq=first, tsval=162) is Recovery.REORDERED


def test_a_device_retransmission_long_after_the_runner_last_spoke_is_a_timeout() -> None:
    connection = Connection().open()
    connection.send(31)
    first = connection.received
    connection.receive(62, 1000, seq=first + 1000)  # the first segment was lost
    arrival = 31 + 30 + 200 + 5
    assert connection.receive(arrival, 1000, seq=first) == (Recovery.RETRANSMIT | Recovery.TIMEOUT)


def test_without_timestamps_a_filled_hole_counts_as_a_retransmission() -> None:
    connection = Connection().open()
    connection.send(31)
    first = connection.received
    connection.packet(62, False, PSH_ACK, 1000, first + 1000)
    assert connection.packet(92, False, PSH_ACK, 1000, first) & Recovery.RETRANSMIT


@pytest.mark.parametrize(
    ("ack", "sack", "expected"),
    [
        (5000, ((4000, 4500),), True),  # below the cumulative ACK
        (5000, ((6000, 6500), (5500, 7000)), True),  # inside the second block
        (5000, ((6000, 6500),), False),  # an ordinary SACK
        (5000, ((6000, 6500), (7000, 8000)), False),
        (5000, (), False),
        (10, ((2**32 - 100, 5),), True),  # across the sequence space's wrap
    ],
)
def test_dsack(ack: int, sack: tuple[tuple[int, int], ...], expected: bool) -> None:
    assert is_dsack(ack, sack) is expected


def test_a_dsack_either_way_marks_a_spurious_retransmission() -> None:
    connection = Connection().open()
    connection.send(31)
    assert connection.ack_in(62, sack=((900, 1001),)) & Recovery.SPURIOUS


def _timestamp(tsval: int) -> bytes:
    return b"\x01\x01\x08\x0a" + struct.pack("!II", tsval, 7)


def _sack(*blocks: tuple[int, int]) -> bytes:
    body = b"".join(struct.pack("!II", left, right) for left, right in blocks)
    return b"\x01\x01\x05" + bytes([2 + len(body)]) + body


def test_options_give_the_timestamp_and_the_sack_blocks() -> None:
    options = parse_options(_timestamp(123456) + _sack((10, 20), (30, 40)))
    assert options == TcpOptions(123456, ((10, 20), (30, 40)))


@pytest.mark.parametrize(
    "options",
    [
        b"",
        b"\x00" + _timestamp(5),  # end of options first
        b"\x08",  # a kind without its length
        b"\x05\x01",  # a length below 2
        b"\x05\x0a\x00\x00",  # a length beyond the options
    ],
)
def test_malformed_or_absent_options_give_nothing(options: bytes) -> None:
    assert parse_options(options) == NO_OPTIONS


def test_the_tally_counts_each_kind_once_and_a_syn_retry_is_no_new_connect() -> None:
    tally = Tally()
    tally.add(True, SYN, 0, 40, 1, 0)
    tally.add(
        True, SYN, 0, 40, 1, 1000 * MS, Recovery.RETRANSMIT | Recovery.SYN_RETRY | Recovery.TIMEOUT
    )
    tally.add(False, SYN_ACK, 0, 40, 1, 1030 * MS)
    tally.add(True, PSH_ACK, 2896, 52, 2, 1031 * MS)
    tally.add(False, PSH_ACK, 100, 52, 1, 1061 * MS, Recovery.RETRANSMIT)
    tally.add(False, ACK, 0, 52, 1, 1062 * MS, Recovery.SPURIOUS)
    tally.add(False, PSH_ACK, 100, 52, 1, 1063 * MS, Recovery.REORDERED)
    counts = tally.result()
    assert counts.connects == 1
    assert (counts.data_segments_out, counts.data_segments_in) == (4, 3)
    assert (counts.retransmits_out, counts.retransmits_in) == (1, 1)
    assert (counts.timeouts, counts.syn_retries, counts.spurious, counts.reordered_in) == (
        1,
        1,
        1,
        1,
    )
    assert counts.recovered is True


def test_a_quic_tally_counts_no_recovery() -> None:
    tally = Tally(recovery=False)
    tally.add_datagram(True, 1200, 28, 1, 0, connect=True, event=True)
    counts = tally.result()
    assert counts.retransmits_out is None
    assert counts.data_segments_out is None
    assert counts.recovered is None
