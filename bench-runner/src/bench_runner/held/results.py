"""The document a held-connections sweep writes: ``<results>/<run id>/hold.json`` (schema in
SCHEMA.md, "Held connections"), with each step's figures and every context they need: the
profile and its verified RTT, the client and its version, the operation, the lab."""

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from bench_runner.held.limits import HeldLimit
from bench_runner.held.step import HeldStep
from bench_runner.result_file import write_result_file
from bench_runner.results import LabInfo, ProfileInfo, RunnerInfo
from bench_runner.rtt_probe import RttCheck

HOLD_SCHEMA_VERSION = 1
HOLD_FILE = "hold.json"


class VerifiedRtt(BaseModel):
    port: int
    verified_rtt_ms: float | None
    check: RttCheck


class HoldResult(BaseModel):
    schema_version: int = HOLD_SCHEMA_VERSION
    run_id: str
    started_at: datetime
    finished_at: datetime
    lab: LabInfo
    runner: RunnerInfo
    profile: ProfileInfo
    transport: str
    client: str
    client_version: str
    operation: str
    """What one operation is, in words."""
    rtt: VerifiedRtt
    operations_per_connection: int | None
    duration_s: float | None
    open_concurrency: int
    nofile_limit: int
    """The runner's RLIMIT_NOFILE (soft): the client's file descriptor ceiling."""
    steps: list[HeldStep]
    limit: HeldLimit | None
    """What stopped the sweep early: None when every step held."""
    ok: bool
    error: str | None


def write_hold(result: HoldResult, results_dir: Path) -> Path:
    return write_result_file(result, results_dir / result.run_id, HOLD_FILE)
