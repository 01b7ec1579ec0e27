"""One nightly run at a time, whoever starts it: an exclusive flock on a file in the results
directory, which the scheduler and `make nightly` share. The kernel drops the lock when its
holder exits, however it exits, so a crash never leaves the lab locked."""

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

LOCK_NAME = "nightly.lock"


class NightlyBusyError(RuntimeError):
    """Another nightly run holds the lock; the message names it."""


@contextmanager
def nightly_lock(results_dir: Path, run_id: str, now: datetime) -> Iterator[None]:
    """Hold the lock for the body, or raise NightlyBusyError at once (never wait: a run
    that waited would measure at another time than its schedule says)."""
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode("utf-8", errors="replace").strip()
            raise NightlyBusyError(
                f"another nightly run holds {path} ({_describe(holder)}): not starting "
                f"{run_id}, two nightly runs never share the lab"
            ) from None
        # Who holds it, for the message of a run refused meanwhile.
        os.ftruncate(fd, 0)
        holder_text = json.dumps({"run_id": run_id, "started_at": now.isoformat()})
        os.pwrite(fd, holder_text.encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # closing the only descriptor releases the flock


def _describe(holder: str) -> str:
    try:
        info = json.loads(holder)
        return f"run {info['run_id']}, started {info['started_at']}"
    except (ValueError, KeyError, TypeError):
        return "its run id not written yet"
