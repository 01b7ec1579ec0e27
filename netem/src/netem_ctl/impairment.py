"""What to do to packets, split into the two directions; stdlib only so the engines run anywhere."""

import math
from dataclasses import dataclass

# Without a rate limit the queue must still hold everything sent during one delay;
# sized for a 1 Gbit/s sender of full-size frames, and never below netem's default.
ASSUMED_LINE_RATE_MBIT = 1000.0
FRAME_BYTES = 1500
MIN_LIMIT_PACKETS = 1000


@dataclass(frozen=True)
class DirectionImpairment:
    """Impairment for one direction, in the integer units that tc and the delayer take."""

    delay_us: int
    jitter_us: int
    loss_pct: float
    rate_kbit: int
    limit_packets: int
    keep_order: bool = False
    """With jitter: no packet leaves before the one ahead of it (a FIFO link's queueing)."""


@dataclass(frozen=True)
class Impairment:
    """A WAN profile: RTT and jitter are round-trip figures, split between the directions.

    `split` is the fraction applied client->device; loss and rate apply to each direction.
    `limit_packets` None means: size the queue for rate x delay. `keep_order` False lets a
    jittered packet overtake the ones before it, as netem's default does.
    """

    rtt_ms: float
    split: float = 0.5
    jitter_ms: float = 0.0
    loss_pct: float = 0.0
    rate_mbit: float = 0.0
    limit_packets: int | None = None
    keep_order: bool = False

    @property
    def draws_per_packet(self) -> bool:
        """Loss or jitter: random draws that must meet each wire packet, not a GSO burst."""
        return self.loss_pct > 0 or self.jitter_ms > 0

    @property
    def is_neutral(self) -> bool:
        return (
            self.rtt_ms == 0 and self.jitter_ms == 0 and self.loss_pct == 0 and self.rate_mbit == 0
        )

    def toward_device(self) -> DirectionImpairment:
        return self._direction(self.split)

    def from_device(self) -> DirectionImpairment:
        return self._direction(1.0 - self.split)

    def _direction(self, share: float) -> DirectionImpairment:
        delay_ms = self.rtt_ms * share
        jitter_ms = self.jitter_ms * share
        return DirectionImpairment(
            delay_us=round(delay_ms * 1000),
            jitter_us=round(jitter_ms * 1000),
            loss_pct=self.loss_pct,
            rate_kbit=round(self.rate_mbit * 1000),
            limit_packets=self.limit_packets
            or auto_limit_packets(self.rate_mbit, delay_ms + jitter_ms),
            keep_order=self.keep_order,
        )


def auto_limit_packets(rate_mbit: float, delay_ms: float) -> int:
    """Twice the packets in flight at `rate_mbit` over `delay_ms` (serialisation backlog too)."""
    rate = rate_mbit or ASSUMED_LINE_RATE_MBIT
    in_flight = rate * 1e6 * delay_ms / 1000 / (8 * FRAME_BYTES)
    return max(MIN_LIMIT_PACKETS, math.ceil(2 * in_flight))
