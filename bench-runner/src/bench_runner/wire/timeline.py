"""Where an iteration's wall time goes, told from its packets (pure).

The capture sees every packet of the mode's connections at the runner's interface, stamped
by the kernel. The iteration's span is cut at each packet that moves the exchange on (data,
a SYN or FIN, the ACK that completes a handshake: its *events*) and every piece between two
events goes to one part:

- **network**: the runner sent and waits for the device, from its earliest event out still
  waiting to the answer (the first event in a round trip after it, as
  ``roundtrips.RoundTripCounter`` counts them): one verified RTT of that wait is the round
  trip the protocol needs. An event in sooner than that (OpenSSH 10's sshd sends its KEXINIT
  and its hostkeys message on its own, a few ms after what came before) was sent before the
  request reached the device: the wait goes on through it, and still holds one RTT;
- **device**: the rest of such a wait (the device working on the request; the gap at the
  runner less the RTT), and the gaps between the device's own successive events once it has
  answered (it is still working, or still sending);
- **client**: from an answer's arrival to the runner's next send, between the runner's own
  successive sends, and before the first event and after the last (the client library);
- **TCP stall**: a side had data but TCP held it until an ACK came. Seen from the runner:
  the device's next segment arrives one RTT after the runner's pure ACK of its previous one
  (Nagle behind a delayed ACK, or a full window), or the runner's next segment leaves right
  after the device's pure ACK of its previous one. Behind a delayed ACK (a side silent for
  its ACK timer, 40 ms on Linux) the held segment may follow a few ms late on a loaded
  host. The whole gap is the stall: the held segment's wait, the ACK timer and the RTT it
  takes to release it. "One RTT" is the connection's own, from the kernel's stamps on its
  SYN and SYN-ACK when the capture saw them (in this iteration or an earlier one of the
  mode), else the verified RTT. The verified RTT is timed from user space: on a loaded host
  it runs up to a millisecond long, several times the whole path at ``local``, and a
  release measured against it would look too early to be one.

- **recovery**: TCP repairing a loss (``recovery``). The gap before a segment the runner
  sends again (its retransmission timer's wait, or the wait for the duplicate ACKs that
  triggered it) and, in a wait during which a segment was sent again either way or whose
  answer is itself sent again, what is left after its round trip: the device's own time in
  such a wait cannot be told from the repair's (on the lab's device it is under a
  millisecond). A device segment sent again that fills a hole while the runner waits for
  nothing is recovery whole.

The parts are cut from the iteration's span and never add up to more than its wall time
(``Span``): only events stamped inside the span are the iteration's. A packet of its
connections stamped after the client returned (the device's FIN once the client has closed
and gone, delayed by a busy host) or before it started (the last of an earlier iteration's)
is no part of its time: from the last event inside to the span's end is the client's, as
from the start to the first. ``unaccounted_ms`` is what the parts leave of the wall time:
the client reads the packets' clock just inside its wall-time clock, so it is the time
between those readings (microseconds; more when the client was descheduled between them).
Concurrent connections (requests in flight together) share one timeline: each piece is
counted once, in the order events happened (a stamp earlier than one already counted adds
nothing). Only running totals are kept, never a packet list.

QUIC (UDP) reaches the split as packets without flags or sequence numbers: every datagram is
an event but the client's that cannot carry a request (``quic_flows``), so network, device
and client mean what they mean over TCP, a connection's first Initial and its answer being
one wait like any request. There is no TCP stall: QUIC has no Nagle, and its delayed
acknowledgments hold back nothing a side has to send. What could take a stall's place, a
sender waiting for acknowledgments because its congestion or flow-control window is full,
or a server that has sent three times what it received from a client not yet validated
(RFC 9000 section 8.1), cannot be told from the wire: the acknowledgments that release such
a wait are encrypted. The lab's answers fit in the initial windows, and its handshake flight
in the anti-amplification allowance; a wait of that kind would show as one round trip more,
network and device time.
"""

from dataclasses import dataclass

from pydantic import BaseModel

from bench_runner.influx_schema import IterationField, SummaryField, time_field, time_p50_field
from bench_runner.roundtrips import earliest_answer_ns
from bench_runner.stats import percentile

SYN, FIN, RST, ACK = 0x02, 0x01, 0x04, 0x10
RETRANSMIT = 1
"""``recovery.Recovery.RETRANSMIT``: the packet carries sequence space sent before."""
SEQ_SPACE = 1 << 32
MIN_STALL_NS = 1_000_000
"""A pause shorter than this is not called a stall: at the lab's own sub-millisecond RTT,
every ACK is followed by something within a millisecond."""
ACK_REACTION_NS = 500_000
"""How soon after an ACK arrives a segment TCP held leaves: the kernel sends it at once."""
RTT_SLACK_FRACTION = 0.10
RTT_SLACK_MIN_NS = 500_000
"""A segment released by an ACK arrives one RTT after it, give or take this much (the
engine's jitter and scheduling)."""
DELAYED_ACK_NS = 20_000_000
"""An ACK this long after the segment it covers was held by its sender's delayed-ACK timer
(Linux waits at least 40 ms)."""
LOADED_RELEASE_NS = 5_000_000
"""After a delayed ACK, the held segment may come this late on a loaded host: whatever
speaks within it after a side kept silent for the ACK timer was waiting for that ACK."""


def _at_or_after(number: int, reference: int) -> bool:
    """``number >= reference`` in TCP's modular sequence space."""
    return (number - reference) % SEQ_SPACE < SEQ_SPACE // 2


@dataclass(frozen=True, slots=True)
class Packet:
    """What the accounting needs of one packet; ``connection`` tells the runner's
    connections apart (its port); ``recovery`` is what loss recovery made of it
    (``recovery.Recovery``'s flags). A UDP datagram has no flags, ``seq`` and ``ack`` 0, and
    ``payload`` 0 unless it is an event."""

    time_ns: int
    outgoing: bool
    flags: int
    payload: int
    seq: int
    ack: int
    connection: int
    recovery: int = 0

    @property
    def retransmitted(self) -> bool:
        return bool(self.recovery & RETRANSMIT)

    def sequence_end(self) -> int:
        """The sequence number an ACK must reach to cover this packet (SYN and FIN count
        one)."""
        return (self.seq + self.payload + (1 if self.flags & (SYN | FIN) else 0)) % SEQ_SPACE


class TimeSplit(BaseModel):
    """One iteration's wall time by part (``modes[].time_split.per_iteration``)."""

    network_ms: float
    device_ms: float
    client_ms: float
    stall_ms: float
    recovery_ms: float = 0.0
    """TCP repairing losses (0 in results older than the part)."""
    stalls: int
    """Held segments: ``device_stalls`` on the device's side, ``client_stalls`` on the
    runner's."""
    device_stalls: int
    client_stalls: int
    unaccounted_ms: float


@dataclass(frozen=True, slots=True)
class Span:
    """An iteration as its client timed it: ``start_ns`` and ``end_ns`` on the packets' clock
    (CLOCK_REALTIME), ``wall_ns`` its wall time on the monotonic clock."""

    start_ns: int
    end_ns: int
    wall_ns: int

    def cut_end_ns(self) -> int:
        """Where the parts end: at the span's end, but never more than the wall time after
        its start (the realtime clock stepped, or the client read it before its monotonic
        one at the start), so the parts never add up to more than the wall time."""
        return self.start_ns + max(min(self.end_ns - self.start_ns, self.wall_ns), 0)


class HandshakeRtts:
    """Each connection's RTT as its handshake showed it (SYN out, SYN-ACK in), kept across
    a mode's iterations: a reused connection's handshake was in an earlier one. A SYN sent
    again leaves its connection unmeasured (which SYN the SYN-ACK answers is unknown)."""

    __slots__ = ("_rtt_ns", "_syn_sent_ns")

    def __init__(self) -> None:
        self._syn_sent_ns: dict[int, int | None] = {}
        self._rtt_ns: dict[int, int] = {}

    def add(self, packet: Packet) -> None:
        if not packet.flags & SYN:
            return
        if packet.outgoing and not packet.flags & ACK:
            retransmitted = packet.connection in self._syn_sent_ns
            self._syn_sent_ns[packet.connection] = None if retransmitted else packet.time_ns
            self._rtt_ns.pop(packet.connection, None)
        elif not packet.outgoing and packet.flags & ACK:
            sent_ns = self._syn_sent_ns.pop(packet.connection, None)
            if sent_ns is not None:
                self._rtt_ns[packet.connection] = max(packet.time_ns - sent_ns, 0)

    def get(self, connection: int) -> int | None:
        return self._rtt_ns.get(connection)


class Timeline:
    """Feeds on the packets of one iteration's segment of the capture, in capture order;
    ``split()`` gives the parts of its ``span``. ``handshakes`` is shared by a mode's
    timelines (a fresh one when not given): it learns from every packet, inside the span
    or not."""

    __slots__ = (
        "_answer_after_ns",
        "_awaiting_handshake_ack",
        "_client",
        "_client_stalls",
        "_cut_end_ns",
        "_device",
        "_device_stalls",
        "_first_ns",
        "_handshakes",
        "_last",
        "_last_pure_ack",
        "_network",
        "_reached_ns",
        "_recovering",
        "_recovery",
        "_rtt_ns",
        "_span",
        "_stall",
        "_wait_network",
        "_waiting_since_ns",
    )

    def __init__(self, rtt_ns: int, span: Span, handshakes: HandshakeRtts | None = None) -> None:
        self._rtt_ns = rtt_ns
        self._span = span
        self._cut_end_ns = span.cut_end_ns()
        self._handshakes = HandshakeRtts() if handshakes is None else handshakes
        self._first_ns: int | None = None
        self._last: Packet | None = None
        self._reached_ns = span.start_ns
        """The latest event stamp counted so far: every piece is counted from it once."""
        self._last_pure_ack: dict[bool, Packet] = {}
        """Since the last event: the latest pure ACK each way (keyed by ``outgoing``)."""
        self._awaiting_handshake_ack: set[int] = set()
        self._answer_after_ns = earliest_answer_ns(rtt_ns)
        self._waiting_since_ns: int | None = None
        """The stamp of the earliest event out still waiting for its answer."""
        self._wait_network = 0
        """The network counted in that wait so far (at most one RTT)."""
        self._recovering = False
        """A segment was sent again during the current wait."""
        self._network = self._device = self._client = self._stall = self._recovery = 0
        self._device_stalls = self._client_stalls = 0

    def add(self, packet: Packet) -> None:
        self._handshakes.add(packet)
        if not self._span.start_ns <= packet.time_ns <= self._cut_end_ns:
            return  # not the iteration's time (see the module's docstring)
        if not self._is_event(packet):
            if packet.flags & ACK and not packet.flags & RST:
                self._last_pure_ack[packet.outgoing] = packet
            return
        if self._last is None:
            self._first_ns = packet.time_ns
        else:
            self._account(self._last, packet)
        if packet.outgoing and self._waiting_since_ns is None:
            self._waiting_since_ns = packet.time_ns
        self._last = packet
        self._reached_ns = max(self._reached_ns, packet.time_ns)
        self._last_pure_ack.clear()

    def _is_event(self, packet: Packet) -> bool:
        if packet.payload or packet.flags & (SYN | FIN):
            if packet.flags & SYN and packet.flags & ACK and not packet.outgoing:
                self._awaiting_handshake_ack.add(packet.connection)
            return True
        if packet.outgoing and packet.connection in self._awaiting_handshake_ack:
            # The device's accept() waits for it: a step of the connect, not an ACK.
            self._awaiting_handshake_ack.discard(packet.connection)
            return True
        return False

    def _account(self, previous: Packet, event: Packet) -> None:
        gap = max(event.time_ns - self._reached_ns, 0)
        if event.retransmitted:
            self._recovering = True
        if event.outgoing:
            if event.retransmitted:
                self._recovery += gap
            elif previous.outgoing and self._held_by_client(previous, event, gap):
                self._stall += gap
                self._client_stalls += 1
            else:
                self._client += gap
            return
        if (
            not event.retransmitted
            and not previous.outgoing
            and self._held_by_device(previous, event, gap)
        ):
            self._stall += gap
            self._device_stalls += 1
        elif self._waiting_since_ns is not None:
            round_trip = min(gap, self._rtt_ns - self._wait_network)
            self._network += round_trip
            self._wait_network += round_trip
            if self._recovering:
                self._recovery += gap - round_trip
            else:
                self._device += gap - round_trip
        elif event.retransmitted:
            self._recovery += gap
        else:
            self._device += gap
        if (
            self._waiting_since_ns is not None
            and event.time_ns - self._waiting_since_ns >= self._answer_after_ns
        ):
            self._waiting_since_ns = None
            self._wait_network = 0
            self._recovering = False

    def _covering_ack(self, previous: Packet, outgoing: bool) -> Packet | None:
        """The latest pure ACK sent the ``outgoing`` way since ``previous`` that covers it
        on its connection."""
        ack = self._last_pure_ack.get(outgoing)
        if (
            ack is None
            or ack.connection != previous.connection
            or not _at_or_after(ack.ack, previous.sequence_end())
        ):
            return None
        return ack

    def _held_by_device(self, previous: Packet, event: Packet, gap: int) -> bool:
        """The device's next segment came one RTT after the runner's ACK of its last one:
        the device had it and waited for that ACK. Behind a delayed ACK (the runner kept
        silent for its timer) a loaded host may take a few ms more to send it."""
        ack = self._covering_ack(previous, outgoing=True)
        if ack is None or gap < MIN_STALL_NS or event.connection != previous.connection:
            return False
        rtt_ns, slack_ns = self._release_rtt(event.connection)
        late = event.time_ns - ack.time_ns - rtt_ns
        if ack.time_ns - previous.time_ns >= DELAYED_ACK_NS:
            return -slack_ns <= late <= max(slack_ns, LOADED_RELEASE_NS)
        return abs(late) <= slack_ns

    def _held_by_client(self, previous: Packet, event: Packet, gap: int) -> bool:
        """The runner's next segment left right after the device's ACK of its last one,
        which came back a round trip after it: TCP held it for that ACK (a few ms later on a
        loaded host when the device had held its ACK for its timer)."""
        ack = self._covering_ack(previous, outgoing=False)
        if ack is None or gap < MIN_STALL_NS or event.connection != previous.connection:
            return False
        waited = ack.time_ns - previous.time_ns
        rtt_ns, slack_ns = self._release_rtt(event.connection)
        if waited < rtt_ns - slack_ns:
            return False
        reaction = event.time_ns - ack.time_ns
        limit = LOADED_RELEASE_NS if waited >= DELAYED_ACK_NS + rtt_ns else ACK_REACTION_NS
        return 0 <= reaction <= limit

    def _release_rtt(self, connection: int) -> tuple[int, int]:
        """The RTT an ACK takes to release a held segment on ``connection`` (its handshake's,
        else the verified one), and the slack around it."""
        rtt_ns = self._handshakes.get(connection)
        if rtt_ns is None:
            rtt_ns = self._rtt_ns
        return rtt_ns, max(RTT_SLACK_MIN_NS, int(rtt_ns * RTT_SLACK_FRACTION))

    def split(self) -> TimeSplit:
        """The parts of the span, and what they leave of its wall time."""
        client = self._client
        if self._first_ns is None:
            client += self._cut_end_ns - self._span.start_ns
        else:
            client += (self._first_ns - self._span.start_ns) + (self._cut_end_ns - self._reached_ns)
        parts = (self._network, self._device, client, self._stall, self._recovery)
        network_ms, device_ms, client_ms, stall_ms, recovery_ms = (part / 1e6 for part in parts)
        return TimeSplit(
            network_ms=network_ms,
            device_ms=device_ms,
            client_ms=client_ms,
            stall_ms=stall_ms,
            recovery_ms=recovery_ms,
            stalls=self._device_stalls + self._client_stalls,
            device_stalls=self._device_stalls,
            client_stalls=self._client_stalls,
            unaccounted_ms=(self._span.wall_ns - sum(parts)) / 1e6,
        )


PARTS: tuple[str, ...] = ("network", "device", "client", "stall", "recovery")


class TimeSplits(BaseModel):
    """A mode's time split (``modes[].time_split`` in results.json)."""

    rtt_ms: float
    """The verified RTT one wait's network share is measured against."""
    per_iteration: list[TimeSplit]
    """One split per successful measured iteration, in run order."""
    p50_ms: dict[str, float]
    """The median of each part (``network``, ``device``, ``client``, ``stall``,
    ``recovery``; no ``recovery`` in results older than it)."""
    stalls: int
    """Held segments over all those iterations."""
    max_unaccounted_ms: float
    """The largest ``unaccounted_ms`` of any iteration."""


def summarize_splits(rtt_ms: float, per_iteration: list[TimeSplit]) -> TimeSplits | None:
    if not per_iteration:
        return None
    return TimeSplits(
        rtt_ms=rtt_ms,
        per_iteration=per_iteration,
        p50_ms={
            part: percentile([getattr(split, f"{part}_ms") for split in per_iteration], 0.5)
            for part in PARTS
        },
        stalls=sum(split.stalls for split in per_iteration),
        max_unaccounted_ms=max(split.unaccounted_ms for split in per_iteration),
    )


ITERATION_COLUMNS: tuple[str, ...] = (
    *(time_field(part) for part in PARTS),
    IterationField.TIME_STALLS,
    IterationField.TIME_UNACCOUNTED_MS,
)
"""Per-iteration CSV columns and InfluxDB ``iteration`` fields."""
SUMMARY_COLUMNS: tuple[str, ...] = (
    *(time_p50_field(part) for part in PARTS),
    SummaryField.TIME_STALLS,
)
"""Per-mode CSV columns and InfluxDB ``mode_summary`` fields."""


def iteration_fields(split: TimeSplit | None) -> dict[str, float | int | None]:
    values: list[float | int | None] = (
        [None] * len(ITERATION_COLUMNS)
        if split is None
        else [*(getattr(split, f"{part}_ms") for part in PARTS), split.stalls, split.unaccounted_ms]
    )
    return dict(zip(ITERATION_COLUMNS, values, strict=True))


def summary_fields(splits: TimeSplits | None) -> dict[str, float | int | None]:
    values: list[float | int | None] = (
        [None] * len(SUMMARY_COLUMNS)
        if splits is None
        else [*(splits.p50_ms.get(part) for part in PARTS), splits.stalls]
    )
    return dict(zip(SUMMARY_COLUMNS, values, strict=True))
