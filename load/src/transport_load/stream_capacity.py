"""Where streaming subscriptions fall behind (pure).

A sweep step of gnmi-stream holds ``streams`` STREAM SAMPLE subscriptions of one leaf at
``interval_ms``: the device owes ``streams * 1000 / interval_ms`` updates a second. The step
keeps up while the client receives at least 95 % of them and the 95th percentile of their
lag (receive time minus the device's timestamp) stays within one interval: a lag above the
interval means updates queue faster than they are delivered; a stream that failed (the
device drops a subscription that falls behind) is behind too. The first step of an interval
that does not keep up is where that interval's streams fall behind (the knee); the step
before it is the most streams the device held at that rate.
"""

from dataclasses import dataclass

DELIVERED_FRACTION = 0.95


@dataclass(frozen=True)
class StreamStep:
    streams: int
    interval_ms: float
    delivered_per_s: float
    lag_p95_ms: float | None
    """None: no update arrived in the step's window."""
    failures: int = 0

    @property
    def expected_per_s(self) -> float:
        return self.streams * 1000.0 / self.interval_ms

    @property
    def delivered_ratio(self) -> float:
        return self.delivered_per_s / self.expected_per_s

    @property
    def behind(self) -> bool:
        return (
            self.lag_p95_ms is None
            or self.failures > 0
            or self.delivered_ratio < DELIVERED_FRACTION
            or self.lag_p95_ms > self.interval_ms
        )


@dataclass(frozen=True)
class Capacity:
    interval_ms: float
    held_streams: int | None
    """The most streams of a step that kept up before the first that did not (None: the
    first step already fell behind)."""
    behind_at_streams: int | None
    """The first step that fell behind (None: every step kept up)."""


def capacities(steps: list[StreamStep]) -> list[Capacity]:
    """Per interval, in the order the intervals first appear, over its steps by streams."""
    found = []
    for interval in dict.fromkeys(step.interval_ms for step in steps):
        held: int | None = None
        behind: int | None = None
        for step in sorted(
            (s for s in steps if s.interval_ms == interval), key=lambda s: s.streams
        ):
            if step.behind:
                behind = step.streams
                break
            held = step.streams
        found.append(Capacity(interval, held, behind))
    return found
