"""The earlier nights of a run's series, read from the results directory.

An earlier night is an earlier run (``started_at`` before the run's) of the same plan, at
the same profile, on the same target (host and inventory name): each ``results.json``
under ``RESULTS_DIR`` is one run, whatever its schema version. A series is what the
issue names (mode, client, parameters, profile, engine) plus the commands: the same
measurement night after night, across client upgrades (a library that got slower is a
regression). A night contributes a series only when it published it with samples.
"""

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench_runner.results import ModeResult, RunResult
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


def same_lab(run: RunResult, document: Mapping[str, Any]) -> bool:
    """``document`` (a results.json) is an earlier night of ``run``'s kind."""
    target = document.get("target") or {}
    profile = document.get("profile") or {}
    return (
        document.get("run_id") != run.run_id
        and (document.get("plan") or "default") == (run.plan or "default")
        and profile.get("name") == run.profile.name
        and target.get("host") == run.target.host
        and target.get("name") == run.target.name
        and datetime.fromisoformat(document["started_at"]) < run.started_at
    )


def read_runs(results_dir: Path) -> Iterable[dict[str, Any]]:
    """Every readable results.json under ``results_dir`` (one level down)."""
    for path in sorted(results_dir.glob("*/results.json")):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a run being written, or not a run's file: not a night
        if isinstance(document, dict) and "started_at" in document:
            yield document


def nights_by_series(
    run: RunResult, documents: Iterable[Mapping[str, Any]], keep: int
) -> dict[SeriesId, list[NightRecord]]:
    """The last ``keep`` earlier nights of every series, oldest first."""
    earlier = sorted(
        (document for document in documents if same_lab(run, document)),
        key=lambda document: datetime.fromisoformat(document["started_at"]),
    )
    nights: dict[SeriesId, list[NightRecord]] = {}
    for document in earlier:
        try:
            earlier_run = RunResult.model_validate(document)
        except ValidationError:
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
