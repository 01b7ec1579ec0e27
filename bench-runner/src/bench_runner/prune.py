"""Deleting old runs from the results directory. Only a run's own directory goes: a
directory directly under it with a results.json whose run ended more than the limit ago.
Anything else (the spool, plan files, fleet.yaml, a directory without a readable
results.json, a symlink) is never touched."""

import json
import shutil
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path


@dataclass(frozen=True)
class OldRun:
    path: Path
    finished_at: datetime


def _finished_at(directory: Path) -> datetime | None:
    try:
        data = json.loads((directory / "results.json").read_text(encoding="utf-8"))
        finished = datetime.fromisoformat(data["finished_at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return finished if finished.tzinfo is not None else None


def old_runs(results_dir: Path, keep_days: int, now: datetime, prefix: str = "") -> list[OldRun]:
    """Runs whose name starts with ``prefix`` that ended more than ``keep_days`` before
    ``now``, oldest first; ``keep_days`` 0 keeps everything."""
    if keep_days <= 0 or not results_dir.is_dir():
        return []
    limit = now - timedelta(days=keep_days)
    found = []
    for directory in results_dir.iterdir():
        if directory.is_symlink() or not directory.is_dir():
            continue
        if not directory.name.startswith(prefix):
            continue
        finished = _finished_at(directory)
        if finished is not None and finished < limit:
            found.append(OldRun(directory, finished))
    return sorted(found, key=lambda run: run.finished_at)


def delete(run: OldRun) -> None:
    shutil.rmtree(run.path)
