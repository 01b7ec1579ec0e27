"""The fleet tools' program: ``python -m fleet_tools`` in its own environment
(bench-runner/fleet-tools, ``/opt/fleet-tools`` in the image), given one job as JSON on its
input, answering with one result as JSON on its output; what it logs goes to its error
output. The device's credentials reach it in its environment, never in the job."""

import asyncio
import json
import math
import os
from collections.abc import Sequence

from pydantic import BaseModel, ValidationError

from bench_runner.fleet_job.job import FleetJob

FLEET_TOOLS_PYTHON = "/opt/fleet-tools/bin/python"
"""The environment's interpreter; BENCH_FLEET_TOOLS overrides it."""
STDERR_TAIL = 4000


class FleetToolError(RuntimeError):
    """The program did not run the job: it refused it, crashed, or answered nonsense."""


class FleetHost(BaseModel):
    """One device of the job's inventory, as the tools address it."""

    name: str
    host: str
    platform: str
    ssh_port: int
    https_port: int
    netconf_port: int


class HostRecord(BaseModel):
    """What one device's part of the job did."""

    name: str
    ok: bool
    elapsed_s: float | None
    """The device's own time in the job: Nornir, its task's wall time in its worker; Ansible,
    its tasks' durations summed."""
    started_s: float | None
    """When its part started, from the job's start."""
    changed: bool | None
    outputs: list[str]
    error: str | None


class ClientUsage(BaseModel):
    cpu_s: float
    """User and system CPU of the tool's process and its children."""
    max_rss_bytes: int


class ToolResult(BaseModel):
    tool: str
    versions: dict[str, str]
    """Every distribution and collection the job ran on, with its version."""
    wall_s: float
    """The job from the tool's start to its end, the program's own start-up left out."""
    hosts: list[HostRecord]
    client: ClientUsage


def tool_job(job: FleetJob, hosts: Sequence[FleetHost], timeout_s: float) -> dict[str, object]:
    """The job as the program reads it."""
    return {
        "tool": job.tool,
        "operation": job.operation,
        "connection": job.connection,
        "ssh_type": job.effective_ssh_type,
        "persistent": job.persistent,
        "workers": job.workers,
        "commands": list(job.commands),
        "config": {"parents": list(job.config_parents), "lines": list(job.config_lines)},
        "hosts": [host.model_dump() for host in hosts],
        "timeout_s": timeout_s,
    }


def job_timeout_s(job: FleetJob, timeout_s: float) -> float:
    """The whole job's limit: ``timeout_s`` is the program's per device and operation, and
    the devices go ``workers`` at a time, with two more rounds for start and end."""
    return timeout_s * (math.ceil(job.devices / job.workers) + 2)


def parse_result(stdout: bytes, hosts: Sequence[FleetHost]) -> ToolResult:
    """The program's answer, checked: one record per device of the job, none more."""
    try:
        result = ToolResult.model_validate_json(stdout)
    except ValidationError as exc:
        raise FleetToolError(
            f"fleet tools: unreadable result ({exc.error_count()} errors)"
        ) from exc
    named = [record.name for record in result.hosts]
    if sorted(named) != sorted(host.name for host in hosts):
        raise FleetToolError(f"fleet tools: results for {named}, not for the job's devices")
    return result


async def run_tools(
    job: FleetJob, hosts: Sequence[FleetHost], username: str, password: str, timeout_s: float
) -> ToolResult:
    """Run the job through the program; FleetToolError when it ran nothing."""
    python = os.environ.get("BENCH_FLEET_TOOLS", FLEET_TOOLS_PYTHON)
    environment = {**os.environ, "DEVICE_USERNAME": username, "DEVICE_PASSWORD": password}
    try:
        process = await asyncio.create_subprocess_exec(
            python,
            "-m",
            "fleet_tools",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
        )
    except OSError as exc:
        raise FleetToolError(f"fleet tools: cannot start {python}: {exc}") from exc
    payload = json.dumps(tool_job(job, hosts, timeout_s)).encode()
    try:
        stdout, stderr = await asyncio.wait_for(
            process.communicate(payload), timeout=job_timeout_s(job, timeout_s)
        )
    except TimeoutError as exc:
        process.kill()
        await process.wait()
        raise FleetToolError("fleet tools: the job did not end in time; stopped") from exc
    if process.returncode != 0:
        tail = stderr.decode(errors="replace")[-STDERR_TAIL:]
        raise FleetToolError(f"fleet tools: exit status {process.returncode}: {tail}")
    return parse_result(stdout, hosts)
