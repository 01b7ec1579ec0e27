"""A fleet job step on the lab: the first ``devices`` of the device's fleet, the run lock held
and the profile applied, the RTT verified on every device's port of the job's transport, then
the tools' program timed while the device's resources are sampled, the profile checked
unchanged after it, the document written and, when everything held, published.

A step whose RTT did not verify, whose profile changed under it, or whose program ran nothing
writes its document with ``ok: false`` and its reason, and publishes nothing: a fault never
produces a number.
"""

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx

from bench_runner.fleet import FleetError, fetch_fleet
from bench_runner.fleet_job.client_cores import available_cores
from bench_runner.fleet_job.job import FleetJob
from bench_runner.fleet_job.publish import publish_fleet_job
from bench_runner.fleet_job.results import DeviceRtt, FleetJobResult, write_fleet_job
from bench_runner.fleet_job.summary import client_utilisation, job_model, per_device
from bench_runner.fleet_job.tools import FleetHost, FleetToolError, ToolResult, run_tools
from bench_runner.lab_info import runner_info
from bench_runner.lab_run import Presenter, UsageError
from bench_runner.lab_step import LabStep, lab_step, require_netem
from bench_runner.netem import NetemError
from bench_runner.resources import ResourceMonitor, ResourceUsage
from bench_runner.results import LabInfo, ProfileInfo
from bench_runner.settings import Settings


@dataclass(frozen=True)
class FleetJobRequest:
    job: FleetJob
    profile: str
    run_id: str
    timeout_s: float
    """The program's limit per device and operation."""
    publish: bool = True
    wait_for_lab_s: float = 0.0
    sweep: str | None = None
    """The fleet sweep the step is one of (sweep_run.py)."""


def _port(job: FleetJob, host: FleetHost) -> int:
    return {"ssh": host.ssh_port, "netconf": host.netconf_port, "https": host.https_port}[
        job.transport
    ]


async def _verify(job: FleetJob, hosts: list[FleetHost], lab: LabStep) -> list[DeviceRtt]:
    verified = []
    for host in hosts:
        gate = await lab.verify_rtt(host.host, _port(job, host))
        verified.append(
            DeviceRtt(
                name=host.name,
                host=host.host,
                port=_port(job, host),
                verified_rtt_ms=gate.verified_rtt_ms,
                check=gate.check,
            )
        )
    return verified


async def _timed_job(
    settings: Settings, request: FleetJobRequest, hosts: list[FleetHost], login: tuple[str, str]
) -> tuple[ToolResult, ResourceUsage | None]:
    async with ResourceMonitor(settings.device_metrics_url) as monitor:
        tool_result = await run_tools(request.job, hosts, *login, request.timeout_s)
    return tool_result, monitor.usage


def fleet_hosts(settings: Settings, devices: int) -> list[FleetHost]:
    """The first ``devices`` of the device's fleet, in its order."""
    try:
        listing = fetch_fleet(settings)
    except FleetError as exc:
        raise UsageError(f"the device's fleet: {exc}") from exc
    if devices > len(listing.devices):
        raise UsageError(
            f"the fleet has {len(listing.devices)} devices, not {devices}: set "
            "DEVICE_FLEET_SIZE in .env and `make up` (docs/fleet.md)"
        )
    ordered = sorted(listing.devices, key=lambda device: device.index)[:devices]
    return [
        FleetHost(
            name=device.name,
            host=device.address,
            platform=listing.platform,
            ssh_port=settings.device_ssh_port,
            https_port=settings.device_https_port,
            netconf_port=settings.device_netconf_port,
        )
        for device in ordered
    ]


def run_fleet_job(
    settings: Settings, request: FleetJobRequest, presenter: Presenter
) -> FleetJobResult:
    """Run the step, write its document, publish it when it holds; the document either way."""
    if not settings.device_username or settings.device_password is None:
        raise UsageError("DEVICE_USERNAME and DEVICE_PASSWORD must be set")
    login = (settings.device_username, settings.device_password.get_secret_value())
    require_netem(settings, "a fleet job")
    job = request.job
    hosts = fleet_hosts(settings, job.devices)
    started_at = datetime.now(UTC)
    error: str | None = None
    tool_result: ToolResult | None = None
    usage: ResourceUsage | None = None
    with lab_step(
        settings, request.profile, request.wait_for_lab_s, request.run_id, presenter
    ) as lab:
        profile = lab.profile
        rtt = asyncio.run(_verify(job, hosts, lab))
        refused = [
            f"{device.name}: {device.check.reason}" for device in rtt if not device.check.passed
        ]
        if refused:
            error = "RTT not verified, the job not run: " + "; ".join(refused)
        else:
            presenter.note(f"{job.label}: {job.devices} devices, {job.workers} workers")
            try:
                tool_result, usage = asyncio.run(_timed_job(settings, request, hosts, login))
            except FleetToolError as exc:
                error = str(exc)
            try:
                if not lab.unchanged():
                    error = "netem's profile changed while the job ran: not published"
            except (NetemError, httpx.HTTPError) as exc:
                error = f"netem's profile could not be checked after the job: {exc}"
    result = _result(settings, request, started_at, profile, rtt, tool_result, usage, error)
    path = write_fleet_job(result, settings.results_dir)
    presenter.note(f"results: {settings.shown_path(path)}")
    if result.ok and request.publish:
        presenter.deliveries(publish_fleet_job(settings, result))
    return result


def _result(
    settings: Settings,
    request: FleetJobRequest,
    started_at: datetime,
    profile: ProfileInfo,
    rtt: list[DeviceRtt],
    tool_result: ToolResult | None,
    usage: ResourceUsage | None,
    error: str | None,
) -> FleetJobResult:
    job = request.job
    hosts = tool_result.hosts if tool_result is not None else []
    failed = [host.name for host in hosts if not host.ok]
    if error is None and failed:
        error = f"{len(failed)} device(s) failed: {', '.join(failed)}"
    stats = per_device(hosts) if tool_result is not None else None
    cores = available_cores()
    return FleetJobResult(
        run_id=request.run_id,
        sweep=request.sweep,
        started_at=started_at,
        finished_at=datetime.now(UTC),
        lab=LabInfo(commit=settings.lab_commit, images=settings.lab_images),
        runner=runner_info(),
        profile=profile,
        tool=job.tool,
        connection=job.connection,
        operation=job.operation,
        transport=job.transport,
        ssh_type=job.effective_ssh_type,
        persistent=job.persistent,
        label=job.label,
        devices=job.devices,
        workers=job.workers,
        commands=list(job.commands) if job.operation == "show" else [],
        config_lines=list(job.config_lines) if job.operation == "config" else [],
        versions=tool_result.versions if tool_result is not None else {},
        rtt=rtt,
        ok=error is None,
        error=error,
        wall_s=tool_result.wall_s if tool_result is not None else None,
        per_device=stats,
        model=job_model(job.devices, job.workers, stats, tool_result.wall_s)
        if tool_result is not None and stats is not None
        else None,
        client=tool_result.client if tool_result is not None else None,
        client_cores=cores,
        client_utilisation=client_utilisation(
            job.tool, tool_result.client.cpu_s, tool_result.wall_s, cores
        )
        if tool_result is not None
        else None,
        device_resources=usage,
        hosts=hosts,
    )
