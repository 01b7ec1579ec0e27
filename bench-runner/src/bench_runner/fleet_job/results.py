"""The document a fleet job step writes: ``<results>/<run id>/fleet-job.json`` (schema in
SCHEMA.md, "Fleet jobs"), with every context a figure needs: the profile and its verified
RTT on each device, the tool and every version it ran on, devices, workers, the lab."""

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from bench_runner.fleet_job.summary import JobModel
from bench_runner.fleet_job.tools import ClientUsage, HostRecord
from bench_runner.resources import ResourceUsage
from bench_runner.result_file import write_result_file
from bench_runner.results import LabInfo, ProfileInfo, RunnerInfo
from bench_runner.rtt_probe import RttCheck
from bench_runner.stats import Stats

FLEET_JOB_SCHEMA_VERSION = 1
FLEET_JOB_FILE = "fleet-job.json"


class DeviceRtt(BaseModel):
    """The RTT verified on one device's port of the job's transport before the job ran."""

    name: str
    host: str
    port: int
    verified_rtt_ms: float | None
    check: RttCheck


class FleetJobResult(BaseModel):
    schema_version: int = FLEET_JOB_SCHEMA_VERSION
    run_id: str
    sweep: str | None = None
    """The fleet sweep this step is one of (its ``fleet-sweep.json``); None for one step."""
    started_at: datetime
    finished_at: datetime
    lab: LabInfo
    runner: RunnerInfo
    profile: ProfileInfo
    tool: str
    connection: str
    operation: str
    transport: str
    ssh_type: str | None
    persistent: bool
    label: str
    """tool/connection/operation and what else sets the step apart: its series."""
    devices: int
    workers: int
    commands: list[str]
    config_lines: list[str]
    versions: dict[str, str]
    rtt: list[DeviceRtt]
    ok: bool
    """Every device verified and done: only then are the figures published."""
    error: str | None
    wall_s: float | None
    per_device: Stats | None
    """The devices' own times, ms, with their intervals."""
    model: JobModel | None
    client: ClientUsage | None
    client_cores: float | None = None
    """The cores the runner's container may use (client_cores.py)."""
    client_utilisation: float | None = None
    """client.cpu_s / wall_s / the cores the tool can use (summary.client_utilisation)."""
    device_resources: ResourceUsage | None
    """The device container's CPU and memory over the job (one container for the fleet)."""
    hosts: list[HostRecord]


def write_fleet_job(result: FleetJobResult, results_dir: Path) -> Path:
    return write_result_file(result, results_dir / result.run_id, FLEET_JOB_FILE)
