"""Loss recovery as the capture sees it: which TCP segments were sent again, and why (pure).

The capture sits at the runner's interface, on the near side of the impaired path: it sees
every segment the runner sends, its retransmissions included, and those of the device's
segments that survived the path. Per connection (the runner's port), in capture order:

- **retransmission out**: a runner segment whose sequence space starts before the highest
  end sent so far (a SYN sent again is one, and a *SYN retry*);
- **retransmission in**: a device segment that starts before the highest end received so
  far, unless it is an original that a later one overtook (*reordered*): a reordered
  original carries a TCP timestamp no later than the segment that overtook it, while a
  retransmission is stamped when it is sent again, later. Without timestamps, every such
  segment counts as a retransmission. A SYN-ACK received again is one, and a SYN retry;
- **timeout**: a retransmission that waited at least Linux's minimum retransmission timeout
  (200 ms): sent by the runner with nothing received on its connection for that long, or
  received from the device that long (plus a round trip) after the runner's last segment
  on it. It is what the retransmission timer, or a tail-loss probe with one segment out
  (which waits as long), costs. A retransmission an ACK triggered (fast recovery) or a
  short probe is none;
- **spurious**: a D-SACK (RFC 2883), either way: the receiver got a segment it already had,
  so the sender retransmitted what had not been lost (or had arrived late).

What cannot be seen: a device segment lost on the path and sent again by the device's timer
before anything else arrives looks like a first transmission. The lone answer to a request
is the usual case, and there the runner's own timer, armed for the request the lost answer
would have acknowledged, mostly fires first: a retransmission out, and the device's D-SACK.
QUIC's packet numbers and acknowledgments are encrypted: a UDP capture counts none of this.
"""

from dataclasses import dataclass
from enum import IntFlag

SYN, FIN, ACK = 0x02, 0x01, 0x10
SEQ_SPACE = 1 << 32
RTO_MIN_NS = 200_000_000
"""Linux's minimum retransmission timeout (TCP_RTO_MIN), also what a tail-loss probe with a
single segment out adds to its wait."""
TIMER_SLACK_NS = 5_000_000
"""A timer's wait as stamped at the runner may look this much shorter (stamps on a loaded
host; the RTT's variation)."""
OPTION_END, OPTION_NOP, OPTION_SACK, OPTION_TIMESTAMP = 0, 1, 5, 8


class Recovery(IntFlag):
    """What a packet was, for loss recovery (none: a first transmission, or no data)."""

    NONE = 0
    RETRANSMIT = 1
    TIMEOUT = 2
    SYN_RETRY = 4
    SPURIOUS = 8
    """The packet carries a D-SACK: it reports the other side's needless retransmission."""
    REORDERED = 16


@dataclass(frozen=True, slots=True)
class TcpOptions:
    """The options loss recovery reads: the sender's timestamp, and the SACK blocks."""

    tsval: int | None = None
    sack: tuple[tuple[int, int], ...] = ()


NO_OPTIONS = TcpOptions()


def parse_options(options: bytes | memoryview) -> TcpOptions:
    """The timestamp value and SACK blocks of a TCP header's options (malformed options end
    the parse: what was read before stands)."""
    tsval: int | None = None
    blocks: list[tuple[int, int]] = []
    at = 0
    while at < len(options):
        kind = options[at]
        if kind == OPTION_END:
            break
        if kind == OPTION_NOP:
            at += 1
            continue
        if at + 1 >= len(options) or options[at + 1] < 2 or at + options[at + 1] > len(options):
            break
        length = options[at + 1]
        if kind == OPTION_TIMESTAMP and length == 10:
            tsval = int.from_bytes(options[at + 2 : at + 6], "big")
        elif kind == OPTION_SACK:
            for block in range(at + 2, at + length - 7, 8):
                blocks.append(
                    (
                        int.from_bytes(options[block : block + 4], "big"),
                        int.from_bytes(options[block + 4 : block + 8], "big"),
                    )
                )
        at += length
    return TcpOptions(tsval, tuple(blocks))


def _before(number: int, reference: int) -> bool:
    """``number < reference`` in TCP's modular sequence (and timestamp) space."""
    return 0 < (reference - number) % SEQ_SPACE < SEQ_SPACE // 2


def is_dsack(ack: int, sack: tuple[tuple[int, int], ...]) -> bool:
    """RFC 2883: the first SACK block reports a duplicate when it lies below the cumulative
    ACK, or inside the second block."""
    if not sack:
        return False
    left, right = sack[0]
    if not _before(ack, right):  # right <= ack
        return True
    if len(sack) > 1:
        outer_left, outer_right = sack[1]
        return not _before(left, outer_left) and not _before(outer_right, right)
    return False


class _Connection:
    __slots__ = ("high_in", "high_in_tsval", "high_out", "last_in_ns", "last_out_ns", "synack_in")

    def __init__(self) -> None:
        self.high_out: int | None = None
        """The end of the highest sequence space the runner sent (its SYN included)."""
        self.high_in: int | None = None
        self.high_in_tsval: int | None = None
        """The timestamp of the device segment that reached ``high_in``."""
        self.synack_in = False
        self.last_in_ns: int | None = None
        self.last_out_ns: int | None = None


class RecoveryTracker:
    """Classifies a mode's TCP packets in capture order; shared by its iterations, since a
    kept connection's sequence numbers carry over. ``rtt_ns``: the verified RTT (how long
    after the runner's last segment a device timer's retransmission can first arrive)."""

    __slots__ = ("_connections", "_rtt_ns")

    def __init__(self, rtt_ns: int) -> None:
        self._rtt_ns = rtt_ns
        self._connections: dict[int, _Connection] = {}

    def classify(
        self,
        time_ns: int,
        outgoing: bool,
        flags: int,
        payload: int,
        seq: int,
        ack: int,
        connection: int,
        options: TcpOptions,
    ) -> Recovery:
        state = self._connections.get(connection)
        opening = outgoing and flags & SYN and not flags & ACK
        if state is None or (opening and state.high_out != (seq + 1) % SEQ_SPACE):
            # A SYN with a new initial sequence number opens a new connection, even on a
            # port an earlier one used (hundreds of fresh connects reuse some); the same
            # number again is the SYN retried.
            state = self._connections[connection] = _Connection()
        kind = Recovery.NONE
        if flags & ACK and is_dsack(ack, options.sack):
            kind |= Recovery.SPURIOUS
        length = payload + (1 if flags & (SYN | FIN) else 0)
        if length:
            end = (seq + length) % SEQ_SPACE
            if outgoing:
                kind |= self._outgoing(state, time_ns, flags, seq, end)
            else:
                kind |= self._incoming(state, time_ns, flags, seq, end, options.tsval)
        if outgoing:
            state.last_out_ns = time_ns
        else:
            state.last_in_ns = time_ns
        return kind

    @staticmethod
    def _outgoing(state: _Connection, time_ns: int, flags: int, seq: int, end: int) -> Recovery:
        if state.high_out is None or not _before(seq, state.high_out):
            state.high_out = end
            return Recovery.NONE
        if _before(state.high_out, end):
            state.high_out = end
        if flags & SYN:
            return Recovery.RETRANSMIT | Recovery.SYN_RETRY | Recovery.TIMEOUT
        kind = Recovery.RETRANSMIT
        quiet_since = state.last_in_ns
        if quiet_since is None or time_ns - quiet_since >= RTO_MIN_NS - TIMER_SLACK_NS:
            kind |= Recovery.TIMEOUT
        return kind

    def _incoming(
        self, state: _Connection, time_ns: int, flags: int, seq: int, end: int, tsval: int | None
    ) -> Recovery:
        if flags & SYN:
            if state.synack_in:
                # The device's answer to a SYN retried, or its own timer's: the runner's
                # retry, when there was one, already counted the timeout.
                return Recovery.RETRANSMIT | Recovery.SYN_RETRY
            state.synack_in = True
        if state.high_in is None or not _before(seq, state.high_in):
            state.high_in, state.high_in_tsval = end, tsval
            return Recovery.NONE
        if (
            tsval is not None
            and state.high_in_tsval is not None
            and not _before(state.high_in_tsval, tsval)
        ):
            return Recovery.REORDERED  # stamped no later than the segment that overtook it
        if _before(state.high_in, end):
            state.high_in, state.high_in_tsval = end, tsval
        kind = Recovery.RETRANSMIT
        sent_last = state.last_out_ns
        if sent_last is None or time_ns - sent_last >= self._rtt_ns + RTO_MIN_NS - TIMER_SLACK_NS:
            kind |= Recovery.TIMEOUT
        return kind
