"""The results document (schema_version 1, documented field by field in SCHEMA.md)."""

import os
import secrets
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from bench_runner.rtt_probe import RttProbe
from bench_runner.stats import Stats

SCHEMA_VERSION: Literal[1] = 1


class LabInfo(BaseModel):
    commit: str | None
    images: str | None


class RunnerInfo(BaseModel):
    version: str
    python: str


class TargetInfo(BaseModel):
    host: str
    ssh_port: int
    https_port: int


class ProfileInfo(BaseModel):
    name: str
    rtt_ms: float
    jitter_ms: float
    loss_pct: float
    rate_mbit: float
    source: str | None
    engine: str
    engine_reason: str | None
    applied_at: str | None
    readback: dict[str, Any] | None


class ModeResult(BaseModel):
    mode: str
    transport: str
    client: str
    client_version: str
    description: str
    iterations: int
    warmup: int
    commands: list[str]
    configured_rtt_ms: float
    verified_rtt_ms: float | None
    rtt_probe: RttProbe | None
    min_round_trips: int
    expected_round_trips: int
    ok: bool
    stats: Stats
    samples_ms: list[float]
    error_messages: list[str]


class RunResult(BaseModel):
    schema_version: Literal[1] = SCHEMA_VERSION
    run_id: str
    started_at: datetime
    finished_at: datetime
    lab: LabInfo
    runner: RunnerInfo
    device: dict[str, Any]
    target: TargetInfo
    profile: ProfileInfo
    modes: list[ModeResult]
    ok: bool


def write_results(result: RunResult, results_dir: Path) -> Path:
    """Write ``<results_dir>/<run_id>/results.json``; the rename keeps readers from ever
    seeing a half-written file."""
    run_dir = results_dir / result.run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / "results.json"
    partial = path.with_suffix(".json.partial")
    partial.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return path


def new_run_id(now: datetime) -> str:
    """``20261122T110000Z-abc123``: sortable by start time, unique by the random suffix."""
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"
