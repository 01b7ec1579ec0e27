"""The runs a report is made of: the results store's runs (store.py) with their
manifest.json, and what other commands leave beside them (a load run's CSVs, ``make
reproduce``'s comparison.md)."""

import csv
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bench_runner import store
from bench_runner.fleet_job.sweep_results import FLEET_SWEEP_FILE
from bench_runner.modes.catalog import FLOOR_CLIENTS as CATALOG_FLOOR_CLIENTS
from bench_runner.store import RunNotFoundError, StoredRun

Document = dict[str, Any]
FLOOR_CLIENTS = frozenset(CATALOG_FLOOR_CLIENTS)


@dataclass(frozen=True)
class Run:
    """One run directory: its results document and, when written, its manifest."""

    path: Path
    document: Document
    manifest: Document | None

    @property
    def run_id(self) -> str:
        return str(self.document["run_id"])

    @property
    def profile(self) -> str:
        return str(self.document["profile"]["name"])

    @property
    def started_at(self) -> datetime:
        return datetime.fromisoformat(self.document["started_at"])

    @property
    def modes(self) -> list[Document]:
        return list(self.document["modes"])


@dataclass(frozen=True)
class FleetSweep:
    """A fleet sweep's directory and its summary (fleet-sweep.json); its steps' own
    fleet-job.json documents are in their directories."""

    path: Path
    document: Document

    @property
    def sweep_id(self) -> str:
        return self.path.name


def find_fleet_sweep(results_dir: Path, name: str) -> FleetSweep | None:
    """The fleet sweep ``name`` (its directory holds fleet-sweep.json); None when there is
    none (``name`` may be a run); RunNotFoundError when its summary cannot be read."""
    if name in ("", ".", "..") or Path(name).name != name:
        return None
    path = results_dir / name / FLEET_SWEEP_FILE
    if not path.is_file():
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunNotFoundError(f"{path}: {exc}") from exc
    if not isinstance(document, dict) or not isinstance(document.get("steps"), list):
        raise RunNotFoundError(f"{path}: not a fleet sweep's summary")
    return FleetSweep(path.parent, document)


def _load_only(document: Document) -> Document:
    """A load run's document (``run_id``, ``lab_commit``, ``load``: the Locust load runs)
    in the shape the report reads: no modes, its profile, times and commit."""
    load = document["load"]
    profile = load.get("profile") or {}
    return {
        **document,
        "started_at": load["started_at"],
        "finished_at": load["finished_at"],
        "lab": {"commit": document.get("lab_commit") or load.get("lab_commit"), "images": None},
        "profile": {
            "name": profile.get("name", "unknown"),
            "rtt_ms": profile.get("configured_rtt_ms", 0.0),
            "jitter_ms": 0.0,
            "loss_pct": 0.0,
            "engine": profile.get("engine", "unknown"),
        },
        "modes": [],
        "plan": None,
        "sweep": None,
        "ok": not (load.get("totals") or {}).get("failures"),
    }


def _manifest(path: Path) -> Document | None:
    """manifest.json, when written; one that cannot be read is left out like a missing
    one (results.json alone makes the report)."""
    try:
        manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def _report_run(run: StoredRun) -> Run:
    """A stored run as the report reads it: a load run's own document in the runner's shape."""
    document = run.document if run.kind == "runner" else _load_only(run.document)
    return Run(path=run.path, document=document, manifest=_manifest(run.path))


def all_runs(results_dir: Path) -> list[Run]:
    """Every run under ``results_dir``, oldest first (store.py)."""
    return [_report_run(run) for run in store.runs(results_dir)]


def find_run(results_dir: Path, name: str) -> Run:
    """The run named ``name``, or the only one whose id starts with it."""
    return _report_run(store.find_run(results_dir, name))


def latest_runs(results_dir: Path, count: int) -> list[Run]:
    """The ``count`` most recent runs, oldest first."""
    runs = all_runs(results_dir)
    if not runs:
        raise RunNotFoundError(f"no run under {results_dir}")
    return runs[-count:]


def sweep_runs(results_dir: Path, run: Run) -> list[Run]:
    """The runs of ``run``'s sweep (same ``sweep``), lowest RTT first; ``[run]`` alone when
    it is no sweep."""
    sweep = run.document.get("sweep")
    if not sweep:
        return [run]
    members = [other for other in all_runs(results_dir) if other.document.get("sweep") == sweep]
    return sorted(members, key=lambda other: (other.document["profile"]["rtt_ms"], other.run_id))


def trend_runs(results_dir: Path, run: Run, limit: int = 60) -> list[Run]:
    """Runs of the same plan, profile and target up to ``run``: the nights a nightly plan
    leaves, oldest first; at most ``limit``."""
    plan = run.document.get("plan")
    if not plan:
        return [run]

    def key(other: Run) -> tuple[Any, ...]:
        target = other.document.get("target") or {}
        return (other.document.get("plan"), other.profile, target.get("host"), target.get("name"))

    same = [
        o for o in all_runs(results_dir) if key(o) == key(run) and o.started_at <= run.started_at
    ]
    return same[-limit:]


def load_history(run: Run) -> list[dict[str, str]]:
    """Locust's ``*_stats_history.csv`` rows under ``<run>/load/`` (``--csv`` output), the
    aggregated rows only; empty when the run has no load run."""
    rows: list[dict[str, str]] = []
    for path in sorted((run.path / "load").glob("*stats_history.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            rows.extend(row for row in csv.DictReader(handle) if row.get("Name") == "Aggregated")
    return rows


def comparison_markdown(results_dir: Path, run: Run) -> tuple[Path, str] | None:
    """``make reproduce``'s comparison.md: in the run's directory, or in the directory named
    by a prefix of its id (``reproduce-<time>`` for ``reproduce-<time>-clibench``)."""
    candidates = [run.path / "comparison.md"]
    candidates += sorted(
        (
            path
            for path in results_dir.glob("*/comparison.md")
            if run.run_id.startswith(path.parent.name)
        ),
        key=lambda path: -len(path.parent.name),
    )
    for path in candidates:
        if path.is_file():
            return path, path.read_text(encoding="utf-8")
    return None


def reproduce_runs(results_dir: Path, run: Run) -> list[Run]:
    """The runs of the ``make reproduce`` invocation ``run`` belongs to (those sharing the
    prefix of the directory its comparison.md is in)."""
    found = comparison_markdown(results_dir, run)
    if found is None:
        return [run]
    prefix = found[0].parent.name
    return [other for other in all_runs(results_dir) if other.run_id.startswith(prefix)]


def is_floor(mode: Document) -> bool:
    return mode.get("client") in FLOOR_CLIENTS


STREAM_MODES = frozenset({"gnmi/stream"})
"""Modes whose iterations are update delays (a change on the device to its update at the
client), not requests: charted and tabled apart from the request times."""


def is_stream(mode: Document) -> bool:
    return mode.get("mode") in STREAM_MODES


def updates_per_second(mode: Document) -> float | None:
    """What one STREAM subscription delivered at the client (``modes[].stream``)."""
    value = (mode.get("stream") or {}).get("updates_per_second")
    return None if value is None else float(value)


def parameters_label(mode: Document) -> str:
    parameters = mode.get("parameters") or {}
    return " ".join(f"{key}={value}" for key, value in sorted(parameters.items()))
