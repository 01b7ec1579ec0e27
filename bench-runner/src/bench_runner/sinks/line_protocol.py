"""InfluxDB 1.x line protocol formatting (pure).

Escaping per the InfluxDB 1.x reference: commas and spaces in measurement names; commas,
equals signs and spaces in tag keys, tag values and field keys; double quotes and
backslashes inside string field values. Line protocol has no escape for a newline, so
newlines (and carriage returns) in any text become spaces. Timestamps are nanoseconds
since the Unix epoch (the write's ``precision=ns``).

A point is identified by its measurement, its tag set and its timestamp: a second point
with the same identity silently replaces the first one's fields. ``distinct_timestamps``
makes sure a batch never does that to itself.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

FieldValue = bool | int | float | str


@dataclass(frozen=True)
class Point:
    measurement: str
    tags: Mapping[str, str]
    fields: Mapping[str, FieldValue | None]
    """``None`` fields are left out (for example p95 of a mode without samples)."""
    timestamp_ns: int

    def series(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        """Measurement and tag set (empty tags are not written, so they do not count)."""
        return self.measurement, tuple(sorted((k, v) for k, v in self.tags.items() if v))


def _single_line(text: str) -> str:
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def escape_measurement(name: str) -> str:
    return _single_line(name).replace(",", r"\,").replace(" ", r"\ ")


def escape_key(text: str) -> str:
    """Escape a tag key, tag value or field key."""
    return _single_line(text).replace(",", r"\,").replace("=", r"\=").replace(" ", r"\ ")


def format_field_value(value: FieldValue) -> str:
    # bool first: it is a subclass of int.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value}i"
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"line protocol cannot carry {value}")
        return repr(value)
    escaped = _single_line(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def format_point(point: Point) -> str:
    """One line, tags sorted by key (InfluxDB's recommended order), empty tags left out."""
    head = escape_measurement(point.measurement)
    for key in sorted(point.tags):
        if point.tags[key]:
            head += f",{escape_key(key)}={escape_key(point.tags[key])}"
    fields = ",".join(
        f"{escape_key(key)}={format_field_value(value)}"
        for key, value in point.fields.items()
        if value is not None
    )
    if not fields:
        raise ValueError(f"point {point.measurement!r} has no fields")
    return f"{head} {fields} {point.timestamp_ns}"


def distinct_timestamps(points: list[Point]) -> list[Point]:
    """``points`` where a point that would share its series and timestamp with an earlier
    one of the batch is moved forward by whole nanoseconds to the next free timestamp:
    no point of the batch overwrites another, and no other point moves."""
    taken: dict[tuple[str, tuple[tuple[str, str], ...]], set[int]] = {}
    distinct: list[Point] = []
    for point in points:
        used = taken.setdefault(point.series(), set())
        timestamp = point.timestamp_ns
        while timestamp in used:
            timestamp += 1
        used.add(timestamp)
        distinct.append(
            point if timestamp == point.timestamp_ns else replace(point, timestamp_ns=timestamp)
        )
    return distinct


def format_points(points: list[Point]) -> str:
    return "".join(format_point(point) + "\n" for point in points)


def count_points(lines: str) -> int:
    return sum(1 for line in lines.splitlines() if line.strip())


_MS_TIMESTAMPS_BELOW = 10**15
"""Milliseconds reach 10**15 in the year 33658, nanoseconds passed it in 1970."""


def timestamp_precision(lines: str) -> str:
    """``ms`` or ``ns``: the unit of a payload's timestamps, from its first line (payloads
    spooled before the runner wrote nanoseconds carry milliseconds). Every line must end
    with a timestamp: a line without one is what a payload cut short looks like, and
    InfluxDB would store the lines before it and refuse the rest."""
    present = [line for line in lines.splitlines() if line.strip()] or [""]
    for number, line in enumerate(present, start=1):
        if not line.rsplit(" ", 1)[-1].lstrip("-").isdigit():
            raise ValueError(f"no timestamp at the end of line {number}: {line[:80]!r}")
    return "ms" if abs(int(present[0].rsplit(" ", 1)[-1])) < _MS_TIMESTAMPS_BELOW else "ns"
