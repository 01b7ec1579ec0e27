"""Deleting old runs from the results directory. Only a run's own directory goes: a run of
the results store (store.py: a directory directly under it, named by its run id, with a
results.json of a run) that ended more than the limit ago. Anything else (the spool, plan
files, fleet.yaml, a directory without a run's results.json, a symlink) is never touched."""

import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from bench_runner import store


@dataclass(frozen=True)
class OldRun:
    path: Path
    finished_at: datetime


def old_runs(results_dir: Path, keep_days: int, now: datetime, prefix: str = "") -> list[OldRun]:
    """Runs whose id starts with ``prefix`` that ended more than ``keep_days`` before
    ``now``, oldest first; ``keep_days`` 0 keeps everything."""
    if keep_days <= 0:
        return []
    limit = now - timedelta(days=keep_days)
    found = [
        OldRun(run.path, run.finished_at)
        for run in store.matching(results_dir, [prefix])
        if run.finished_at < limit
    ]
    return sorted(found, key=lambda run: run.finished_at)


def delete(run: OldRun) -> None:
    shutil.rmtree(run.path)
