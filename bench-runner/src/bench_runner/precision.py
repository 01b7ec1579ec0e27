"""When a mode's measured iterations stop (pure: no clock, no I/O).

A fixed rule runs a set count, as the seed reproductions need. The adaptive rule, the
default, measures until the median's 95 % interval (``stats.quantile_interval``) lies within
the target half-width of the median, checked after every iteration once the minimum count
has run; a maximum count and a time cap per mode bound a mode that never gets there (a noisy
link, a failing client). Whichever ends the loop is recorded, with the half-width reached.

Stopping once the interval is narrow enough looks at the data more than once, which a
fixed-count interval does not; the minimum count keeps the first looks away from the few
samples where an interval is widest and least stable, and the unit tests measure the rule's
coverage on known distributions.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from bench_runner.stats import median_half_width_pct

StopReason = Literal["precise", "max", "cap", "fixed", "aborted"]
"""precise: the target was reached; max: the maximum count ran; cap: the time cap passed;
fixed: a fixed count ran; aborted: the session failed or the profile changed under it."""

DEFAULT_TARGET_PCT = 3.0
DEFAULT_MIN_ITERATIONS = 10
DEFAULT_MAX_ITERATIONS = 200
DEFAULT_TIME_CAP_S = 60.0


class Precision(BaseModel):
    """How a mode's iterations were counted and what precision its median reached."""

    rule: Literal["adaptive", "fixed"]
    target_half_width_pct: float
    """The half-width asked for (a fixed run is judged against it too)."""
    min_iterations: int | None
    max_iterations: int | None
    time_cap_s: float | None
    achieved_half_width_pct: float | None
    """The median's interval's half-width in percent of the median; None: too few samples."""
    stop_reason: StopReason
    precise: bool
    """The achieved half-width is within the target."""


@dataclass(frozen=True)
class StoppingRule:
    """The rule a mode's loop asks after every measured iteration."""

    target_half_width_pct: float = DEFAULT_TARGET_PCT
    fixed_iterations: int | None = None
    """A count to run whatever the precision; None: adaptive."""
    min_iterations: int = DEFAULT_MIN_ITERATIONS
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    time_cap_s: float = DEFAULT_TIME_CAP_S

    def __post_init__(self) -> None:
        if self.target_half_width_pct <= 0:
            raise ValueError("the target half-width must be above 0 %")
        if self.fixed_iterations is not None and self.fixed_iterations < 1:
            raise ValueError("a fixed count must be at least 1")
        if not 1 <= self.min_iterations <= self.max_iterations:
            raise ValueError(
                f"need 1 <= min_iterations ({self.min_iterations}) <= max_iterations "
                f"({self.max_iterations})"
            )
        if self.time_cap_s <= 0:
            raise ValueError("the time cap must be above 0 s")

    @property
    def adaptive(self) -> bool:
        return self.fixed_iterations is None

    @property
    def most_iterations(self) -> int:
        """The most iterations the rule can run (a progress bar's total)."""
        return self.fixed_iterations if self.fixed_iterations is not None else self.max_iterations

    def stop_reason(
        self, samples_ms: Sequence[float], iterations_run: int, elapsed_s: float
    ) -> StopReason | None:
        """Why to stop after ``iterations_run`` measured iterations (failed and excluded
        ones count) of which ``samples_ms`` are the valid ones, ``elapsed_s`` after the
        first began; None: measure another."""
        if self.fixed_iterations is not None:
            return "fixed" if iterations_run >= self.fixed_iterations else None
        if iterations_run < self.min_iterations:
            return None
        half_width = median_half_width_pct(samples_ms)
        if half_width is not None and half_width <= self.target_half_width_pct:
            return "precise"
        if iterations_run >= self.max_iterations:
            return "max"
        if elapsed_s >= self.time_cap_s:
            return "cap"
        return None

    def outcome(self, samples_ms: Sequence[float], stop_reason: StopReason) -> Precision:
        """What the rule reached when the loop ended for ``stop_reason``."""
        achieved = median_half_width_pct(samples_ms)
        return Precision(
            rule="adaptive" if self.adaptive else "fixed",
            target_half_width_pct=self.target_half_width_pct,
            min_iterations=self.min_iterations if self.adaptive else None,
            max_iterations=self.max_iterations if self.adaptive else None,
            time_cap_s=self.time_cap_s if self.adaptive else None,
            achieved_half_width_pct=achieved,
            stop_reason=stop_reason,
            precise=achieved is not None and achieved <= self.target_half_width_pct,
        )
