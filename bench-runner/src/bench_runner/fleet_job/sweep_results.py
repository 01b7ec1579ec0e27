"""A fleet sweep's summary: ``<results>/<sweep>/fleet-sweep.json`` (SCHEMA.md, "Fleet
sweeps"), made from its steps' documents (each kept in its own ``fleet-job.json``): one row
per step with the figures a table or chart needs and their context, the steps skipped, and
the knee of each series, profile and devices count (knee.py). Pure but for the write."""

import statistics
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from bench_runner.fleet_job.job import TOOL_DISTRIBUTIONS, FleetJob
from bench_runner.fleet_job.knee import SATURATION, Knee, KneeStep, find_knee
from bench_runner.fleet_job.results import FleetJobResult
from bench_runner.fleet_job.summary import usable_cores
from bench_runner.fleet_job.sweep import SweepStep
from bench_runner.result_file import write_result_file
from bench_runner.results import LabInfo, RunnerInfo

FLEET_SWEEP_SCHEMA_VERSION = 1
FLEET_SWEEP_FILE = "fleet-sweep.json"


class StepSummary(BaseModel):
    """One step of the sweep: its figures and where its document is."""

    run_id: str
    profile: str
    engine: str
    devices: int
    workers: int
    ok: bool
    error: str | None
    tool_version: str | None
    verified_rtt_ms: float | None
    """The median of the devices' verified RTTs."""
    wall_s: float | None
    rounds: int | None
    predicted_wall_s: float | None
    predicted_low_s: float | None
    predicted_high_s: float | None
    model_verdict: str | None
    model_error_pct: float | None
    per_device_p50_ms: float | None
    per_device_p50_ci_low_ms: float | None
    per_device_p50_ci_high_ms: float | None
    per_device_p95_ms: float | None
    per_device_p95_ci_low_ms: float | None
    per_device_p95_ci_high_ms: float | None
    client_cpu_s: float | None
    client_utilisation: float | None
    client_rss_peak_bytes: int | None
    device_cpu_s: float | None


class FleetSweepResult(BaseModel):
    schema_version: int = FLEET_SWEEP_SCHEMA_VERSION
    sweep: str
    started_at: datetime
    finished_at: datetime
    lab: LabInfo
    runner: RunnerInfo
    tool: str
    connection: str
    operation: str
    transport: str
    ssh_type: str | None
    persistent: bool
    label: str
    devices: list[int]
    workers: list[int]
    profiles: list[str]
    """As asked for (devices and workers sorted, each once)."""
    client_cores: float
    usable_cores: float
    """The cores the tool can keep busy on them (summary.usable_cores)."""
    saturation: float
    """The share of ``usable_cores`` at which the knee counts the client as saturated."""
    steps: list[StepSummary]
    skipped: list[dict[str, int | str]]
    """Steps asked for with more workers than devices: ``profile``, ``devices``, ``workers``."""
    knees: list[Knee]
    ok: bool
    """Every step ran and held."""
    error: str | None
    """Why the sweep stopped before its last step (the lab taken, netem gone); None when it
    ran them all (a step's own failure is in its row)."""


def step_summary(result: FleetJobResult) -> StepSummary:
    stats, model, client = result.per_device, result.model, result.client
    verified = [device.verified_rtt_ms for device in result.rtt if device.verified_rtt_ms]
    device = result.device_resources
    return StepSummary(
        run_id=result.run_id,
        profile=result.profile.name,
        engine=result.profile.engine,
        devices=result.devices,
        workers=result.workers,
        ok=result.ok,
        error=result.error,
        tool_version=result.versions.get(TOOL_DISTRIBUTIONS[result.tool]),
        verified_rtt_ms=statistics.median(verified) if verified else None,
        wall_s=result.wall_s,
        rounds=model.rounds if model else None,
        predicted_wall_s=model.predicted_wall_s if model else None,
        predicted_low_s=model.predicted_low_s if model else None,
        predicted_high_s=model.predicted_high_s if model else None,
        model_verdict=model.verdict if model else None,
        model_error_pct=model.error_pct if model else None,
        per_device_p50_ms=stats.p50_ms if stats else None,
        per_device_p50_ci_low_ms=stats.p50_ci_low_ms if stats else None,
        per_device_p50_ci_high_ms=stats.p50_ci_high_ms if stats else None,
        per_device_p95_ms=stats.p95_ms if stats else None,
        per_device_p95_ci_low_ms=stats.p95_ci_low_ms if stats else None,
        per_device_p95_ci_high_ms=stats.p95_ci_high_ms if stats else None,
        client_cpu_s=client.cpu_s if client else None,
        client_utilisation=result.client_utilisation,
        client_rss_peak_bytes=client.max_rss_bytes if client else None,
        device_cpu_s=device.device_cpu_s if device else None,
    )


def sweep_knees(label: str, steps: Sequence[StepSummary]) -> list[Knee]:
    """The knee of each profile and devices count, in the steps' order."""
    groups: dict[tuple[str, int], list[KneeStep]] = {}
    for step in steps:
        groups.setdefault((step.profile, step.devices), []).append(
            KneeStep(
                workers=step.workers,
                run_id=step.run_id,
                ok=step.ok,
                wall_s=step.wall_s,
                predicted_high_s=step.predicted_high_s,
                client_utilisation=step.client_utilisation,
            )
        )
    return [
        find_knee(label, profile, devices, group) for (profile, devices), group in groups.items()
    ]


def fleet_sweep(
    sweep_id: str,
    job: FleetJob,
    asked: tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...]],
    skipped: Sequence[SweepStep],
    results: Sequence[FleetJobResult],
    times: tuple[datetime, datetime],
    context: tuple[LabInfo, RunnerInfo, float],
    error: str | None,
) -> FleetSweepResult:
    """The sweep's document from its steps' documents, in the order they ran."""
    devices, workers, profiles = asked
    lab, runner, cores = context
    steps = [step_summary(result) for result in results]
    return FleetSweepResult(
        sweep=sweep_id,
        started_at=times[0],
        finished_at=times[1],
        lab=lab,
        runner=runner,
        tool=job.tool,
        connection=job.connection,
        operation=job.operation,
        transport=job.transport,
        ssh_type=job.effective_ssh_type,
        persistent=job.persistent,
        label=job.label,
        devices=sorted(set(devices)),
        workers=sorted(set(workers)),
        profiles=list(dict.fromkeys(profiles)),
        client_cores=cores,
        usable_cores=usable_cores(job.tool, cores),
        saturation=SATURATION,
        steps=steps,
        skipped=[
            {"profile": step.profile, "devices": step.devices, "workers": step.workers}
            for step in skipped
        ],
        knees=sweep_knees(job.label, steps),
        ok=error is None and all(step.ok for step in steps),
        error=error,
    )


def write_fleet_sweep(result: FleetSweepResult, results_dir: Path) -> Path:
    return write_result_file(result, results_dir / result.sweep, FLEET_SWEEP_FILE)
