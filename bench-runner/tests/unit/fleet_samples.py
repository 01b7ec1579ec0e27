"""Fleet sweep documents for the tests: steps of Nornir over netmiko at regional as run.py
would write them (each device about 2 s of its own), and a sweep's summary made of them."""

from datetime import UTC, datetime

from bench_runner.fleet_job.job import FleetJob
from bench_runner.fleet_job.results import DeviceRtt, FleetJobResult
from bench_runner.fleet_job.summary import client_utilisation, job_model, per_device
from bench_runner.fleet_job.sweep import SweepStep, plan_sweep, step_run_id
from bench_runner.fleet_job.sweep_results import FleetSweepResult, fleet_sweep
from bench_runner.fleet_job.tools import ClientUsage, HostRecord
from bench_runner.results import LabInfo, ProfileInfo, RunnerInfo
from bench_runner.rtt_probe import check_rtt

JOB = FleetJob(tool="nornir", connection="netmiko", operation="show", devices=10, workers=1)
NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
DEVICES, WORKERS = (1, 10), (1, 10, 20)


def _records(devices: int, elapsed_s: float, ok: bool = True) -> list[HostRecord]:
    return [
        HostRecord(
            name=f"lab-r{k}", ok=ok, elapsed_s=elapsed_s + k / 1000 if ok else None,
            started_s=0.0, changed=None, outputs=[f"lab-r{k}"], error=None if ok else "timed out",
        )
        for k in range(devices)
    ]  # fmt: skip


def step_result(step: SweepStep, wall_s: float, cpu_s: float, ok: bool = True) -> FleetJobResult:
    """A step of sweep ``sw`` whose job took ``wall_s`` and its client ``cpu_s`` (2 cores)."""
    records = _records(step.devices, 2.0, ok)
    stats = per_device(records)
    profile = ProfileInfo(
        name=step.profile, rtt_ms=30.0, jitter_ms=0.0, loss_pct=0.0, rate_mbit=0.0,
        source=None, engine="nfq", engine_reason=None, applied_at=None, readback=None,
    )  # fmt: skip
    return FleetJobResult(
        run_id=step_run_id("sw", step), sweep="sw", started_at=NOW, finished_at=NOW,
        lab=LabInfo(commit="abc", images=None), runner=RunnerInfo(version="0", python="3.13"),
        profile=profile, tool="nornir", connection="netmiko", operation="show",
        transport="ssh", ssh_type=None, persistent=True, label=JOB.label,
        devices=step.devices, workers=step.workers, commands=["show version"], config_lines=[],
        versions={"nornir": "3.6.0"},
        rtt=[DeviceRtt(name=r.name, host="198.18.101.1", port=22, verified_rtt_ms=30.4,
                       check=check_rtt(30.0, 30.4)) for r in records],
        ok=ok, error=None if ok else f"{step.devices} device(s) failed", wall_s=wall_s,
        per_device=stats,
        model=job_model(step.devices, step.workers, stats, wall_s) if ok else None,
        client=ClientUsage(cpu_s=cpu_s, max_rss_bytes=2**27), client_cores=2.0,
        client_utilisation=client_utilisation("nornir", cpu_s, wall_s, 2.0),
        device_resources=None, hosts=records,
    )  # fmt: skip


def sweep_of(results: list[FleetJobResult], error: str | None = None) -> FleetSweepResult:
    """Sweep ``sw`` over devices 1,10 x workers 1,10,20 at regional, of ``results``."""
    plan = plan_sweep(DEVICES, WORKERS, ("regional",))
    return fleet_sweep(
        "sw",
        JOB,
        (DEVICES, WORKERS, ("regional",)),
        plan.skipped,
        results,
        (NOW, NOW),
        (LabInfo(commit="abc", images=None), RunnerInfo(version="0", python="3.13"), 2.0),
        error,
    )


def knee_sweep() -> FleetSweepResult:
    """Its three steps: 1 device with 1 worker; 10 devices with 1 worker (10 rounds of about
    2 s, the client idle); 10 devices with 10 workers, slower than the model, the client
    busy: the knee of 10 devices."""
    steps = plan_sweep(DEVICES, WORKERS, ("regional",)).steps
    return sweep_of(
        [
            step_result(steps[0], 2.0, 0.2),
            step_result(steps[1], 20.1, 2.0),
            step_result(steps[2], 3.5, 3.3),
        ]
    )
