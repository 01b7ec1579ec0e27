"""Counters of one iteration's packets, and the round trips they make.

Only counters and the direction state live here, never a list of packets, so counting a
1 GB transfer costs no memory. Round trips follow ``roundtrips.RoundTripCounter`` (the
definition the asyncssh socket trace uses), on the kernel's stamps: a SYN the runner sends is
a connect (not when it is sent again: ``recovery``); a packet carrying payload is a send
(runner to target) or a receive (target to runner); pure ACKs, FINs and RSTs without payload
are not events. A UDP datagram (QUIC) comes
with what it is (``quic_flows``): a connection's first Initial is a connect and a send at
once, its answer the round trip's end, as for any send (``add_datagram``).
"""

from bench_runner.roundtrips import Event, RoundTripCounter
from bench_runner.wire.model import WireIteration
from bench_runner.wire.recovery import Recovery

TCP_FIN = 0x01
TCP_SYN = 0x02
TCP_ACK = 0x10
OUT, IN = 0, 1


class Tally:
    __slots__ = (
        "connects",
        "data_segments",
        "ip_bytes",
        "packets",
        "payload",
        "recovery",
        "reordered",
        "retransmits",
        "round_trips",
        "segments",
        "segments_known",
        "spurious",
        "syn_retries",
        "timeouts",
    )

    def __init__(self, answer_after_ns: int = 0, *, recovery: bool = True) -> None:
        """``answer_after_ns``: ``roundtrips.earliest_answer_ns`` of the verified RTT;
        ``recovery``: whether loss recovery is counted (TCP; QUIC's cannot be seen)."""
        self.packets = [0, 0]
        self.segments = [0, 0]
        self.payload = [0, 0]
        self.ip_bytes = [0, 0]
        self.connects = 0
        self.round_trips = RoundTripCounter(answer_after_ns)
        self.segments_known = True
        self.recovery = recovery
        self.data_segments = [0, 0]
        self.retransmits = [0, 0]
        self.timeouts = self.syn_retries = self.spurious = self.reordered = 0

    def add(
        self,
        outgoing: bool,
        tcp_flags: int,
        payload: int,
        headers: int,
        segments: int | None,
        time_ns: int = 0,
        recovery: Recovery = Recovery.NONE,
    ) -> None:
        """One packet as the socket saw it: ``payload`` TCP payload bytes, ``headers`` IP
        + TCP header bytes, ``segments`` wire segments it stands for (None: unknown),
        ``time_ns`` the kernel's stamp, ``recovery`` what it was for loss recovery."""
        self._count(outgoing, payload, headers, segments)
        self._count_recovery(outgoing, tcp_flags, payload, segments, recovery)
        if recovery & Recovery.SYN_RETRY:
            return  # the same connect, its round trip already counted
        if outgoing and tcp_flags & TCP_SYN and not tcp_flags & TCP_ACK:
            self.connects += 1
            self.round_trips.feed(Event.CONNECT, time_ns)
        elif payload:
            self.round_trips.feed(Event.SEND if outgoing else Event.RECV, time_ns)

    def add_datagram(
        self,
        outgoing: bool,
        payload: int,
        headers: int,
        segments: int | None,
        time_ns: int,
        *,
        connect: bool,
        event: bool,
    ) -> None:
        """One UDP datagram (or GSO aggregate): ``payload`` UDP payload bytes, ``headers`` IP
        + UDP header bytes; ``connect``: it starts a QUIC connection, which its answer
        completes as one round trip (no separate one as for TCP's SYN); ``event``: it is a
        send or receive of the round-trip count."""
        self._count(outgoing, payload, headers, segments)
        if connect:
            self.connects += 1
        if event:
            self.round_trips.feed(Event.SEND if outgoing else Event.RECV, time_ns)

    def _count_recovery(
        self, outgoing: bool, flags: int, payload: int, segments: int | None, recovery: Recovery
    ) -> None:
        direction = OUT if outgoing else IN
        if payload:
            self.data_segments[direction] += segments or 1
        elif flags & (TCP_SYN | TCP_FIN):
            self.data_segments[direction] += 1
        if recovery & Recovery.RETRANSMIT:
            self.retransmits[direction] += 1
        if recovery & Recovery.TIMEOUT:
            self.timeouts += 1
        if recovery & Recovery.SYN_RETRY:
            self.syn_retries += 1
        if recovery & Recovery.SPURIOUS:
            self.spurious += 1
        if recovery & Recovery.REORDERED:
            self.reordered += 1

    def _count(self, outgoing: bool, payload: int, headers: int, segments: int | None) -> None:
        direction = OUT if outgoing else IN
        if segments is None:
            self.segments_known = False
            segments = 1
        self.packets[direction] += 1
        self.segments[direction] += segments
        self.payload[direction] += payload
        self.ip_bytes[direction] += payload + segments * headers

    def result(self) -> WireIteration:
        known = self.segments_known
        return WireIteration(
            round_trips=self.round_trips.count,
            connects=self.connects,
            packets_out=self.packets[OUT],
            packets_in=self.packets[IN],
            segments_out=self.segments[OUT] if known else None,
            segments_in=self.segments[IN] if known else None,
            bytes_out=self.payload[OUT],
            bytes_in=self.payload[IN],
            ip_bytes_out=self.ip_bytes[OUT] if known else None,
            ip_bytes_in=self.ip_bytes[IN] if known else None,
            **self._recovery_counts(),
        )

    def _recovery_counts(self) -> dict[str, int | None]:
        counts = {
            "data_segments_out": self.data_segments[OUT],
            "data_segments_in": self.data_segments[IN],
            "retransmits_out": self.retransmits[OUT],
            "retransmits_in": self.retransmits[IN],
            "timeouts": self.timeouts,
            "syn_retries": self.syn_retries,
            "spurious": self.spurious,
            "reordered_in": self.reordered,
        }
        return {name: value if self.recovery else None for name, value in counts.items()}


def wire_segments(payload: int, gso_size: int, gso: bool) -> int:
    """Segments a packet stands for: an aggregate (GRO on receive, GSO/TSO on send) is cut
    into ``gso_size``-byte segments on the wire; any other packet is one segment."""
    if not gso or gso_size <= 0 or payload <= gso_size:
        return 1
    return -(-payload // gso_size)
