"""The 95 % intervals a report shows beside its figures, read from results documents.

A results document written before intervals existed (schema version 4 and earlier) lacks
the fields: its intervals are ``unknown``. One that has the field with null had too few
iterations for an interval (``none``: 6 for a median, 72 for a p95, stats.py). Either way
the figure is not ranked against another: unknown precision never ranks.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bench_runner.stats import intervals_overlap

IntervalState = Literal["known", "none", "unknown"]


@dataclass(frozen=True)
class Shown:
    """An interval as the page shows it."""

    state: IntervalState
    low: float | None = None
    high: float | None = None

    @property
    def bounds(self) -> tuple[float, float] | None:
        if self.low is None or self.high is None:
            return None
        return self.low, self.high


def fields_interval(node: Mapping[str, Any] | None, low: str, high: str) -> Shown:
    """The interval held in two fields of ``node`` (``stats.p50_ci_low_ms``, ...)."""
    if not node or low not in node:
        return Shown("unknown")
    if node.get(low) is None or node.get(high) is None:
        return Shown("none")
    return Shown("known", float(node[low]), float(node[high]))


def interval_of(node: Mapping[str, Any] | None, prefix: str) -> Shown:
    """``<prefix>_ci_low_ms`` and ``<prefix>_ci_high_ms`` of ``node``: a quantile's interval
    in ``stats`` (``p50``, ``p95``), tonight's or the baseline's in a verdict."""
    return fields_interval(node, f"{prefix}_ci_low_ms", f"{prefix}_ci_high_ms")


def pair_interval(node: Mapping[str, Any], key: str) -> Shown:
    """The interval held as a ``[low, high]`` list (``speedup_vs_baseline_ci``, ...)."""
    if key not in node:
        return Shown("unknown")
    value = node.get(key)
    if not value:
        return Shown("none")
    return Shown("known", float(value[0]), float(value[1]))


def from_bounds(bounds: tuple[float, float] | None) -> Shown:
    """An interval computed here (a re-based speedup): ``none`` when it could not be."""
    return Shown("none") if bounds is None else Shown("known", bounds[0], bounds[1])


def p50_interval(mode: Mapping[str, Any]) -> Shown:
    return interval_of(mode.get("stats"), "p50")


def ratio_within_noise(ratio: Shown) -> bool:
    """A ratio (a speedup, a p50 over the floor client's) is within noise of 1 when its
    interval holds 1; never the reference against itself, whose ratio is exactly 1
    (``[1, 1]``). A ratio without an interval says so instead (``interval unknown``)."""
    if ratio.bounds is None or ratio.bounds == (1.0, 1.0):
        return False
    return intervals_overlap(ratio.bounds, (1.0, 1.0))


def order_marks(intervals: Sequence[Shown]) -> list[str | None]:
    """For rows in order of their p50 (fastest first): whether each row is told apart from
    the row above it, ``None`` for the first. Rows whose intervals overlap are ``within
    noise`` of each other, never ranked; a row without an interval is ``interval unknown``."""
    marks: list[str | None] = []
    for index, interval in enumerate(intervals):
        if index == 0:
            marks.append(None)
        elif interval.bounds is None or intervals[index - 1].bounds is None:
            marks.append("interval unknown")
        elif intervals_overlap(interval.bounds, intervals[index - 1].bounds):
            marks.append("within noise")
        else:
            marks.append("slower")
    return marks
