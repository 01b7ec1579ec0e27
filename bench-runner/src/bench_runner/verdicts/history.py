"""The earlier nights of a run's series, read from the results directory.

An earlier night is an earlier run (``started_at`` before the run's) of the same plan, at
the same profile, on the same target (host and inventory name): each run of the results
store (store.py) under ``RESULTS_DIR``, whatever its schema version. A series is what the
issue names (mode, client, parameters, profile, engine) plus the commands: the same
measurement night after night, across client upgrades (a library that got slower is a
regression). A night contributes a series only when it published it with samples.

A night is read from its samples (``gate.night_of``): its median, spread and the median's
95 % interval, the same order statistics results.json's ``stats.p50_ci_low_ms`` and
``p50_ci_high_ms`` hold since schema version 5, so nights written before that have an
interval too. Only the baseline's nightly medians and tonight's interval enter the verdict's
intervals (gate.py).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from bench_runner.results import ModeResult, RunResult
from bench_runner.store import StoredRun, UnreadableRunError
from bench_runner.verdicts.gate import Night, night_of

SeriesId = tuple[str, str, tuple[tuple[str, str], ...], str, str, tuple[str, ...]]
"""mode, client, parameters (as text, sorted), profile, engine, commands."""


@dataclass(frozen=True)
class NightRecord:
    """One earlier night of one series."""

    run_id: str
    started_at: datetime
    night: Night


def series_id(profile: str, engine: str, mode: ModeResult) -> SeriesId:
    return (
        mode.mode,
        mode.client,
        tuple(sorted(mode.parameter_tags().items())),
        profile,
        engine,
        tuple(mode.commands),
    )


def same_lab(run: RunResult, other: StoredRun) -> bool:
    """``other`` is an earlier night of ``run``'s kind."""
    return (
        other.kind == "runner"
        and other.run_id != run.run_id
        and (other.plan or "default") == (run.plan or "default")
        and other.profile == run.profile.name
        and other.target_host == run.target.host
        and other.target_name == run.target.name
        and other.started_at < run.started_at
    )


def nights_by_series(
    run: RunResult, stored: Iterable[StoredRun], keep: int
) -> dict[SeriesId, list[NightRecord]]:
    """The last ``keep`` earlier nights of every series, oldest first."""
    earlier = sorted(
        (other for other in stored if same_lab(run, other)),
        key=lambda other: (other.started_at, other.run_id),
    )
    nights: dict[SeriesId, list[NightRecord]] = {}
    for night_run in earlier:
        try:
            earlier_run = night_run.result()
        except UnreadableRunError:
            continue  # not a results document this runner can read: not a night
        for mode in earlier_run.modes:
            if not mode.published or not mode.samples_ms:
                continue
            key = series_id(earlier_run.profile.name, earlier_run.profile.engine, mode)
            night = night_of(mode.samples_ms)
            nights.setdefault(key, []).append(
                NightRecord(earlier_run.run_id, earlier_run.started_at, night)
            )
    return {key: records[-keep:] for key, records in nights.items()}
