"""Wall-clock time, injectable: tests pass their own clock instead of sleeping."""

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC, always with microseconds (fixed width: the text sorts like the times)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")
