"""Wall-clock time, injectable: tests pass their own clock instead of sleeping."""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC, always with microseconds (a fixed width, so the text sorts like the times)."""
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")
