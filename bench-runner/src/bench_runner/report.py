"""`bench-runner report`: how close runs come to the physics, and what the harness costs.

Per mode: p50 against its round-trip lower bound (``min_round_trips x verified RTT``) and
the harness overhead per iteration: the measured span (``resources.elapsed_s``) minus the
time inside the measured iterations, relative to the latter. A stream mode's (gnmi/stream)
values are update delays: its bound is the one-way delay, half the verified RTT, and it has
no harness overhead to speak of (its span holds the unmeasured change of every iteration).
Per run: its wall time against the RTT-bound minimum of everything it ran,
``sum((warmup + iterations) x min_round_trips x configured RTT)``, and against the round
trips the clients were counted to make on the wire (the same sum with the counted p50); both
only mean something under added delay.
"""

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bench_runner import store
from bench_runner.html_report.runs import is_stream


@dataclass(frozen=True)
class ModeFigures:
    run_id: str
    profile: str
    mode: str
    client: str
    p50_ms: float | None
    bound_ms: float | None
    overhead_pct: float | None
    p50_ci_low_ms: float | None = None
    """The p50's 95 % interval; None with too few samples and before schema version 5."""
    p50_ci_high_ms: float | None = None

    @property
    def p50_over_bound(self) -> float | None:
        if self.p50_ms is None or not self.bound_ms:
            return None
        return self.p50_ms / self.bound_ms


@dataclass(frozen=True)
class RunFigures:
    run_id: str
    profile: str
    wall_s: float
    rtt_bound_s: float
    counted_bound_s: float | None
    """The round trips the clients were counted to make on the wire (p50 per iteration x
    every iteration, warm-up included) x the configured RTT: the network time the run
    needed, whatever the protocol minimum; None unless every mode has wire counts."""
    modes: list[ModeFigures]

    @property
    def wall_over_bound(self) -> float | None:
        return self.wall_s / self.rtt_bound_s if self.rtt_bound_s else None

    @property
    def wall_over_counted(self) -> float | None:
        return self.wall_s / self.counted_bound_s if self.counted_bound_s else None


def _seconds_between(start: str, end: str) -> float:
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def mode_figures(run_id: str, profile: str, mode: dict[str, Any]) -> ModeFigures:
    stats = mode["stats"]
    rtt = mode.get("verified_rtt_ms")
    stream = is_stream(mode)
    bound = (rtt / 2 if stream else mode["min_round_trips"] * rtt) if rtt else None
    overhead = None
    resources = mode.get("resources") or {}
    samples = mode.get("samples_ms") or []
    if not stream and "elapsed_s" in resources and samples and stats.get("errors") == 0:
        inside_ms = sum(samples)
        overhead = 100.0 * (resources["elapsed_s"] * 1000.0 - inside_ms) / inside_ms
    return ModeFigures(
        run_id,
        profile,
        mode["mode"],
        mode["client"],
        stats.get("p50_ms"),
        bound,
        overhead,
        stats.get("p50_ci_low_ms"),
        stats.get("p50_ci_high_ms"),
    )


def run_figures(document: dict[str, Any]) -> RunFigures:
    profile = document["profile"]
    bound_ms = sum(
        (mode["warmup"] + mode["iterations"]) * mode["min_round_trips"] * profile["rtt_ms"]
        for mode in document["modes"]
    )
    counted = [
        ((mode.get("wire") or {}).get("p50") or {}).get("round_trips") for mode in document["modes"]
    ]
    counted_ms = (
        None
        if None in counted
        else sum(
            (mode["warmup"] + mode["iterations"]) * round_trips * profile["rtt_ms"]
            for mode, round_trips in zip(document["modes"], counted, strict=True)
        )
    )
    return RunFigures(
        run_id=document["run_id"],
        profile=profile["name"],
        wall_s=_seconds_between(document["started_at"], document["finished_at"]),
        rtt_bound_s=bound_ms / 1000.0,
        counted_bound_s=counted_ms / 1000.0 if counted_ms is not None else None,
        modes=[mode_figures(document["run_id"], profile["name"], m) for m in document["modes"]],
    )


def load_runs(results_dir: Path, prefixes: list[str]) -> list[RunFigures]:
    """The runner's runs whose id starts with one of ``prefixes``, oldest first (store.py;
    a load run has no modes to set against the physics)."""
    return [
        run_figures(run.document)
        for run in store.matching(results_dir, prefixes)
        if run.kind == "runner"
    ]
