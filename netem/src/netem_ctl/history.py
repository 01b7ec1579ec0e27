"""Generations: a number that changes whenever what is in effect may have changed.

A benchmark sample is valid only while the profile it claims was in effect. A client reads
`instance` and `generation` before and after measuring: any difference means that an apply, a clear,
a watchdog repair (the rules were missing for a while) or a failure happened in between, or that
netem restarted (a new instance, whose generation starts again at 0).
"""

from collections import deque
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from .clock import Clock, iso

HISTORY_SIZE = 256

EventKind = Literal["started", "applied", "cleared", "repaired", "failed"]


@dataclass(frozen=True)
class Event:
    generation: int
    event: EventKind
    profile: str | None  # the profile concerned; None for "started"
    at: datetime
    since: datetime | None = None
    """For a watchdog's `repaired` or `failed`: when the rules were last seen in place. What is
    measured between `since` and `at` was not the profile's."""

    def as_dict(self) -> dict[str, Any]:
        entry = {
            "generation": self.generation,
            "event": self.event,
            "profile": self.profile,
            "at": iso(self.at),
        }
        if self.since is not None:
            entry["since"] = iso(self.since)
        return entry


class History:
    """The last HISTORY_SIZE events, oldest first; the newest carries the current generation.
    Not locked itself: the controller records and reads under its own lock."""

    def __init__(self, clock: Clock):
        self._clock = clock
        self._events: deque[Event] = deque(
            [Event(0, "started", None, clock())], maxlen=HISTORY_SIZE
        )

    @property
    def generation(self) -> int:
        return self._events[-1].generation

    def record(self, event: EventKind, profile: str, since: datetime | None = None) -> Event:
        entry = Event(self.generation + 1, event, profile, self._clock(), since)
        self._events.append(entry)
        return entry

    def events(self) -> list[dict[str, Any]]:
        return [event.as_dict() for event in self._events]
