"""InfluxDB 1.x line protocol formatting (pure).

Escaping per the InfluxDB 1.8 reference: commas and spaces in measurement names; commas,
equals signs and spaces in tag keys, tag values and field keys; double quotes and
backslashes inside string field values. Line protocol has no escape for a newline, so
newlines (and carriage returns) in any text become spaces.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass

FieldValue = bool | int | float | str


@dataclass(frozen=True)
class Point:
    measurement: str
    tags: Mapping[str, str]
    fields: Mapping[str, FieldValue | None]
    """``None`` fields are left out (for example p95 of a mode without samples)."""
    timestamp_ms: int


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
    return f"{head} {fields} {point.timestamp_ms}"


def format_points(points: list[Point]) -> str:
    return "".join(format_point(point) + "\n" for point in points)
