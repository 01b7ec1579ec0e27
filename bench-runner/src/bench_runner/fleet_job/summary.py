"""A fleet job's figures from its devices' records: per-device time with its intervals, and
the model the job's wall time is set against. Pure.

The model: the tool keeps ``workers`` devices busy at a time, so a job of ``devices`` takes
``ceil(devices / workers)`` rounds of one device's time, while the client has CPU to spare
and nothing else waits (Nornir's threaded runner; Ansible's linear strategy runs one task at
a time across the hosts, each task in ``ceil(devices / forks)`` rounds, which sums to the
same). A job slower than its model by more than the per-device p50's interval lets is
limited by something else: the client's CPU, the device, start-up.
"""

import math
from collections.abc import Sequence

from pydantic import BaseModel

from bench_runner.fleet_job.tools import HostRecord
from bench_runner.stats import Stats, summarize


class JobModel(BaseModel):
    rounds: int
    """ceil(devices / workers)."""
    predicted_wall_s: float | None
    """rounds x the per-device p50; None without a device that succeeded."""
    predicted_low_s: float | None
    predicted_high_s: float | None
    """rounds x the ends of the per-device p50's 95 % interval (None under 6 devices)."""
    error_pct: float | None
    """(wall - predicted) / predicted, in percent."""
    verdict: str
    """``follows``: the wall time lies within the prediction's interval (or within 10 % of
    it without one); ``slower``, ``faster``: outside it; ``unknown``: nothing to predict."""


MODEL_TOLERANCE_PCT = 10.0
"""Without an interval (under 6 devices), a wall time within this of the prediction follows."""
TOOL_CORE_CEILING = {"nornir": 1.0}
"""The most cores a tool's own code can keep busy, where fewer than the machine's: Nornir's
threaded runner runs every worker in one interpreter, whose Python code holds one lock (the
GIL) at a time. Ansible's forks are processes: every core."""


def per_device(records: Sequence[HostRecord]) -> Stats:
    """The devices' own times, ms, of those that succeeded; failures as errors."""
    times = [record.elapsed_s * 1000.0 for record in records if record.ok and record.elapsed_s]
    return summarize(times, errors=sum(not record.ok for record in records))


def job_model(devices: int, workers: int, stats: Stats, wall_s: float) -> JobModel:
    rounds = math.ceil(devices / workers)
    if stats.p50_ms is None:
        return JobModel(
            rounds=rounds,
            predicted_wall_s=None,
            predicted_low_s=None,
            predicted_high_s=None,
            error_pct=None,
            verdict="unknown",
        )
    predicted = rounds * stats.p50_ms / 1000.0
    low = rounds * stats.p50_ci_low_ms / 1000.0 if stats.p50_ci_low_ms is not None else None
    high = rounds * stats.p50_ci_high_ms / 1000.0 if stats.p50_ci_high_ms is not None else None
    error_pct = (wall_s - predicted) / predicted * 100.0
    if low is not None and high is not None:
        verdict = "follows" if low <= wall_s <= high else "slower" if wall_s > high else "faster"
    elif abs(error_pct) <= MODEL_TOLERANCE_PCT:
        verdict = "follows"
    else:
        verdict = "slower" if error_pct > 0 else "faster"
    return JobModel(
        rounds=rounds,
        predicted_wall_s=predicted,
        predicted_low_s=low,
        predicted_high_s=high,
        error_pct=error_pct,
        verdict=verdict,
    )


def usable_cores(tool: str, cores: float) -> float:
    """The cores ``tool`` can keep busy on a client that has ``cores``."""
    return min(cores, TOOL_CORE_CEILING.get(tool, cores))


def client_utilisation(tool: str, cpu_s: float, wall_s: float, cores: float) -> float | None:
    """The share of the client's usable cores the tool kept busy over the job: ``cpu_s /
    wall_s / usable_cores``. ``cpu_s`` counts the tool's start-up too, which ``wall_s``
    leaves out, so a short job reads a little high. None without a wall time or cores."""
    usable = usable_cores(tool, cores)
    if wall_s <= 0 or usable <= 0:
        return None
    return cpu_s / wall_s / usable
