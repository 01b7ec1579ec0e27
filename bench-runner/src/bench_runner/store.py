"""The results directory: its runs, one of them found by name, each read once.

A run is a directory directly under the results directory, named by its run id, whose
``results.json`` is one of two documents (SCHEMA.md):

- the runner's: a JSON object with ``run_id``, ``started_at`` and ``finished_at``, a
  ``profile`` with its ``name`` and a ``modes`` list, of any schema version (fields are only
  ever added); a load run may have added its ``load`` section to it;
- a load run's own (``make load``, ``make sweep``): ``run_id`` and a ``load`` object with its
  ``started_at`` and ``finished_at``, and no ``modes``.

Times must carry their time zone (the writers put UTC in them), so that every run can be
set against every other. Anything else is no run, is never listed and never pruned: the
spool, plan files, a directory without a results.json, a results.json that is not one of
those documents (another tool's, or cut short), a symbolic link (a link to a run would be
the run twice) and a directory whose name is not the run id of its document (a copy, which
would otherwise count the same night twice in a verdict's history).

``runs`` lists them oldest first: by start time, then by run id, whatever order the file
system gives. ``find_run`` takes a run id or a prefix that only one run id starts with (an
id wins over the longer ids it starts: ``a`` is the run ``a`` even beside ``ab``);
``matching`` gives every run that starts with any of several prefixes (a command over
several profiles writes ``<sweep>-<profile>`` runs, which its sweep id selects together).

``StoredRun`` carries what every reader selects runs by (ids, times, profile, plan, target)
typed, and the document as written, for readers that show whatever an older document holds;
``StoredRun.result`` reads the runner's document into results.py's models.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from bench_runner.results import RunResult

RESULTS_FILE = "results.json"
LATEST_NAMED = 5
"""Runs a "no such run" error lists, the most recent ones, to say what is there."""

Document = dict[str, Any]
Kind = Literal["runner", "load"]


class RunNotFoundError(LookupError):
    """No run answers to a name: none, more than one, or the one named cannot be read."""


class UnreadableRunError(ValueError):
    """A directory's results.json is not a run's document (module docstring), or not one
    results.py's models read."""


@dataclass(frozen=True)
class StoredRun:
    """One run of the results directory, read once."""

    path: Path
    """The run's directory; its name is ``run_id``."""
    document: Document
    """results.json as written."""
    kind: Kind
    """``runner`` (the document has ``modes``) or ``load`` (a load run's own)."""
    started_at: datetime
    finished_at: datetime
    profile: str
    """``profile.name``; a load run's ``load.profile.name`` (``unknown`` without netem)."""
    plan: str | None
    sweep: str | None
    target_host: str | None
    """``target.host`` and ``target.name``: the device the runner measured (none for a
    load run's own document)."""
    target_name: str | None

    @property
    def run_id(self) -> str:
        return self.path.name

    def result(self) -> RunResult:
        """The runner's document in results.py's models."""
        if self.kind != "runner":
            raise UnreadableRunError(f"{self.path / RESULTS_FILE}: a load run, without modes")
        try:
            return RunResult.model_validate(self.document)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise UnreadableRunError(
                f"{self.path / RESULTS_FILE}: not a results document this runner reads "
                f"({exc.error_count()} problems; {where}: {first['msg']})"
            ) from exc


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _section(value: object) -> Document:
    return value if isinstance(value, dict) else {}


def _moment(where: Path, name: str, value: object) -> datetime:
    try:
        moment = datetime.fromisoformat(str(value)) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise UnreadableRunError(f"{where}: {name} is not a time with its zone: {value!r}")
    return moment


def _stored(directory: Path, document: Document) -> StoredRun:
    where = directory / RESULTS_FILE
    if document.get("run_id") != directory.name:
        raise UnreadableRunError(
            f"{where}: run_id {document.get('run_id')!r} is not its directory's name"
        )
    load = document.get("load")
    if isinstance(document.get("modes"), list):
        kind: Kind = "runner"
        times, section = document, ""
        profile = _text(_section(document.get("profile")).get("name"))
        if profile is None:
            raise UnreadableRunError(f"{where}: no profile.name")
    elif isinstance(load, dict):
        kind, times, section = "load", load, "load."
        profile = _text(_section(load.get("profile")).get("name")) or "unknown"
    else:
        raise UnreadableRunError(f"{where}: neither the runner's modes nor a load run's load")
    target = _section(document.get("target"))
    return StoredRun(
        path=directory,
        document=document,
        kind=kind,
        started_at=_moment(where, f"{section}started_at", times.get("started_at")),
        finished_at=_moment(where, f"{section}finished_at", times.get("finished_at")),
        profile=profile,
        plan=_text(document.get("plan")),
        sweep=_text(document.get("sweep")),
        target_host=_text(target.get("host")),
        target_name=_text(target.get("name")),
    )


def read_run(directory: Path) -> StoredRun:
    """The run in ``directory``; UnreadableRunError when it holds none."""
    path = directory / RESULTS_FILE
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UnreadableRunError(f"{path}: {exc}") from exc
    if not isinstance(document, dict):
        raise UnreadableRunError(f"{path}: not a JSON object")
    return _stored(directory, document)


def _holds_results(directory: Path) -> bool:
    return (
        not directory.is_symlink() and directory.is_dir() and (directory / RESULTS_FILE).is_file()
    )


def _read(results_dir: Path, prefixes: tuple[str, ...]) -> list[StoredRun]:
    """The runs whose directory name (their id) starts with one of ``prefixes``, oldest
    first; the other directories are not read."""
    if not results_dir.is_dir():
        return []
    found = []
    for directory in results_dir.iterdir():
        if not directory.name.startswith(prefixes) or not _holds_results(directory):
            continue
        try:
            found.append(read_run(directory))
        except UnreadableRunError:
            continue  # not a run: another tool's file, or one cut short
    return sorted(found, key=lambda run: (run.started_at, run.run_id))


def runs(results_dir: Path) -> list[StoredRun]:
    """Every run under ``results_dir``, oldest first (module docstring); none when the
    directory does not exist."""
    return _read(results_dir, ("",))


def matching(results_dir: Path, prefixes: Iterable[str]) -> list[StoredRun]:
    """The runs whose id starts with any of ``prefixes``, oldest first."""
    return _read(results_dir, tuple(prefixes))


def find_run(results_dir: Path, name: str) -> StoredRun:
    """The run ``name``, or the only run whose id starts with it."""
    directory = results_dir / name
    if name not in ("", ".", "..") and Path(name).name == name and _holds_results(directory):
        try:
            return read_run(directory)
        except UnreadableRunError as exc:
            raise RunNotFoundError(f"run {name!r} cannot be read: {exc}") from exc
    found = matching(results_dir, [name])
    if len(found) == 1:
        return found[0]
    if found:
        raise RunNotFoundError(
            f"{name!r} starts {len(found)} runs under {results_dir}, name one: "
            + ", ".join(run.run_id for run in found)
        )
    latest = ", ".join(run.run_id for run in runs(results_dir)[-LATEST_NAMED:])
    raise RunNotFoundError(
        f"no run {name!r} under {results_dir}, and no run id starts with it"
        + (f" (the latest: {latest})" if latest else " (it holds no run)")
    )
