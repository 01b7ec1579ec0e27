"""The results document (schema_version 1, documented field by field in SCHEMA.md)."""

import os
import secrets
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from bench_runner.phases import PhaseSummary
from bench_runner.resources import ResourceUsage
from bench_runner.roundtrips import RoundTrips
from bench_runner.rtt_probe import RttCheck, RttProbe
from bench_runner.stats import Stats
from bench_runner.wire.model import WireCounts

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
    netconf_port: int | None = None
    name: str | None = None
    platform: str | None = None


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
    rtt_check: RttCheck | None = None
    published: bool = True
    """False when the verified-RTT gate failed: results.json keeps the mode, sinks do not."""
    speedup_vs_baseline: float | None = None
    resources: ResourceUsage | None = None
    round_trips: RoundTrips | None = None
    """Round trips counted on the client's socket, per successful measured iteration
    (asyncssh modes); null where the client's socket cannot be traced."""
    parameters: dict[str, str | int] | None = None
    """Mode settings beyond the commands (NETCONF: framing, reply_bytes; tunnel/bulk:
    bulk_size)."""
    transfer_bytes: int | None = None
    """Payload bytes one iteration moves (tunnel/bulk); null for the other modes."""
    throughput_mb_s: float | None = None
    """``transfer_bytes`` / p50 wall time, in MB/s (10^6 bytes); null without samples."""
    wire: WireCounts | None = None
    """Packets, bytes and round trips counted on the wire (every client); null when the
    mode was not measured."""
    phases: PhaseSummary | None = None
    """Per-iteration phases and their p50, for clients that expose them; else null."""

    def parameter_tags(self) -> dict[str, str]:
        """``parameters`` as text, for InfluxDB tags and Prometheus labels: the series of
        one mode and client measured with several settings in a run do not collide."""
        return {key: str(value) for key, value in (self.parameters or {}).items()}


class BaselineInfo(BaseModel):
    mode: str
    client: str
    p50_ms: float | None


class NotApplicable(BaseModel):
    """A mode a requested client cannot do: reported, never measured as zero."""

    mode: str
    client: str
    reason: str


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
    baseline: BaselineInfo | None = None
    not_applicable: list[NotApplicable] = []
    plan: str | None = None


def apply_baseline(modes: list[ModeResult], baseline_mode: str) -> BaselineInfo | None:
    """Set every mode's ``speedup_vs_baseline`` (baseline p50 / mode p50, so 3.0 means three
    times faster than the baseline). ``baseline_mode`` is ``mode`` or ``mode@client``; the
    first matching mode of the run is the baseline. None when it is not in the run."""
    name, _, client = baseline_mode.partition("@")
    base = next((m for m in modes if m.mode == name and (not client or m.client == client)),
                None)
    if base is None:
        return None
    base_p50 = base.stats.p50_ms
    for mode in modes:
        if base_p50 is not None and mode.stats.p50_ms:
            mode.speedup_vs_baseline = base_p50 / mode.stats.p50_ms
    return BaselineInfo(mode=base.mode, client=base.client, p50_ms=base_p50)


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
