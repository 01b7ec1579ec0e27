"""The job with Nornir 3.6: the threaded runner (``num_workers`` = the job's workers) runs one
task per device over netmiko (nornir-netmiko), scrapli (nornir-scrapli) or ncclient (our
plugin, nornir_ncclient.py), as an operator's Nornir script does.

What is timed:

* ``wall_s``: from ``InitNornir`` (inventory and runner set up) to the end of ``nr.run``, the
  devices' connections closed; the program's start-up and imports are not in it.
* per device, ``elapsed_s``: its task's wall time in its worker thread, from the task's start
  (the login included: the first command opens the connection) to its last reply; closing the
  connection afterwards is not in it. ``started_s``: the task's start from the job's start, so
  a device waiting for a free worker shows it.

Per operation (each device):

* show: each command (netmiko_send_command / scrapli send_command); a reply the device refused
  (``% Invalid input`` and the like) fails the device.
* config: ``show running-config | section <parent>`` (the whole running-config without a
  parent), the parents and lines in configuration mode (netmiko_send_config / scrapli
  send_configs), the same show again: changed is whether the two differ, so applying lines the
  device already has reports false.
* netconf_get: a ``<get>`` of the interfaces' state.
"""

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nornir import InitNornir
from nornir.core.exceptions import NornirSubTaskError
from nornir.core.inventory import (
    ConnectionOptions,
    Defaults,
    Groups,
    Host,
    Hosts,
    Inventory,
)
from nornir.core.plugins.inventory import InventoryPluginRegister
from nornir.core.task import MultiResult, Result, Task
from nornir_netmiko.tasks import netmiko_send_command, netmiko_send_config
from nornir_scrapli.tasks import send_command as scrapli_send_command
from nornir_scrapli.tasks import send_configs as scrapli_send_configs

from fleet_tools import nornir_ncclient
from fleet_tools.inventory import nornir_hosts
from fleet_tools.protocol import Credentials, HostRecord, Job, bounded

log = logging.getLogger(__name__)

INVENTORY_PLUGIN = "fleet_tools.JobInventory"
REFUSED = re.compile(
    r"^% ?(Invalid input|Incomplete command|Ambiguous command|Unknown command)", re.M
)
"""What the device answers a line it did not take (IOS and EOS)."""
_IOS_REGEX_SPECIAL = re.compile(r"([.^$*+?()\[\]{}|\\_])")


class JobInventory:
    """Nornir inventory plugin: the job's devices, built in memory (Nornir 3.6 ships only the
    file-based SimpleInventory). The credentials are set on the defaults after loading."""

    def __init__(self, hosts: dict[str, dict[str, Any]]) -> None:
        self.hosts = hosts

    def load(self) -> Inventory:
        defaults = Defaults()
        hosts = Hosts()
        for name, spec in self.hosts.items():
            hosts[name] = Host(
                name=name,
                hostname=spec["hostname"],
                port=spec["port"],
                platform=spec["platform"],
                data=dict(spec["data"]),
                connection_options={
                    plugin: ConnectionOptions(
                        port=options.get("port"),
                        platform=options.get("platform"),
                        extras=dict(options.get("extras", {})),
                    )
                    for plugin, options in spec["connection_options"].items()
                },
                defaults=defaults,
            )
        return Inventory(hosts=hosts, groups=Groups(), defaults=defaults)


class DeviceRefusedError(RuntimeError):
    """The device answered a command or line with an error."""


@dataclass
class _Outcome:
    started_s: float = 0.0
    elapsed_s: float = 0.0
    changed: bool | None = None
    outputs: list[str] = field(default_factory=list)
    error: str | None = None


def section_command(parents: tuple[str, ...]) -> str:
    """The show that holds the configuration under the first parent (its whole block)."""
    if not parents:
        return "show running-config"
    pattern = _IOS_REGEX_SPECIAL.sub(r"\\\1", parents[0].strip())
    return f"show running-config | section ^{pattern}$"


def _checked(command: str, output: str) -> str:
    refused = REFUSED.search(output)
    if refused:
        raise DeviceRefusedError(f"{command!r}: {output.strip()[:300]}")
    return output


def _run(task: Task, function: Callable[..., Result], **kwargs: Any) -> str:
    """A subtask's result as text (the first Result of its MultiResult)."""
    multi: MultiResult = task.run(task=function, **kwargs)
    return str(multi[0].result)


def _show(task: Task, job: Job, command: str) -> str:
    if job.connection == "netmiko":
        output = _run(
            task, netmiko_send_command, command_string=command, read_timeout=job.timeout_s
        )
    else:
        output = _run(task, scrapli_send_command, command=command)
    return _checked(command, output)


def _configure(task: Task, job: Job) -> str:
    lines = [*job.config.parents, *job.config.lines]
    if job.connection == "netmiko":
        output = _run(task, netmiko_send_config, config_commands=lines, read_timeout=job.timeout_s)
    else:
        output = _run(task, scrapli_send_configs, configs=lines)
    return _checked("configuration", output)


def _normalized(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines() if line.strip()]


def _operation(task: Task, job: Job, outcome: _Outcome) -> None:
    if job.operation == "show":
        outcome.outputs = [bounded(_show(task, job, command)) for command in job.commands]
        outcome.changed = False
    elif job.operation == "config":
        show = section_command(job.config.parents)
        before = _show(task, job, show)
        outcome.outputs = [bounded(_configure(task, job))]
        after = _show(task, job, show)
        outcome.changed = _normalized(before) != _normalized(after)
    elif job.operation == "netconf_get":
        outcome.outputs = [bounded(_run(task, nornir_ncclient.netconf_get))]
        outcome.changed = False
    else:  # parse_job admits no other operation for Nornir
        raise ValueError(f"nornir runs no {job.operation!r}")


def _failure(exc: BaseException) -> str:
    """The device's error: a failed subtask's own exception or result, else the exception."""
    if isinstance(exc, NornirSubTaskError):
        failed = [result for result in exc.result if result.failed]
        for result in failed:
            if result.exception is not None:
                return _failure(result.exception)
        if failed:
            return f"{failed[0].name}: {str(failed[0].result)[:500]}"
    return f"{type(exc).__name__}: {exc}"[:2000]


def device_task(task: Task, job: Job, job_started: float) -> Result:
    """One device's part, timed in its worker; never raises (the error is in the outcome)."""
    outcome = _Outcome()
    started = time.perf_counter()
    outcome.started_s = started - job_started
    try:
        _operation(task, job, outcome)
    except Exception as exc:
        outcome.error = _failure(exc)
        outcome.changed = None
    outcome.elapsed_s = time.perf_counter() - started
    try:
        task.host.close_connections()
    except Exception as exc:
        log.warning("%s: closing its connections: %s", task.host.name, exc)
    return Result(host=task.host, result=outcome, failed=outcome.error is not None)


def _record(name: str, result: MultiResult | None) -> HostRecord:
    outcome = result[0].result if result else None
    if not isinstance(outcome, _Outcome):
        error = str(result[0].exception) if result and result[0].exception else "no result"
        return HostRecord(name, False, None, None, None, [], error)
    return HostRecord(
        name=name,
        ok=outcome.error is None,
        elapsed_s=round(outcome.elapsed_s, 6),
        started_s=round(outcome.started_s, 6),
        changed=outcome.changed,
        outputs=outcome.outputs,
        error=outcome.error,
    )


def run(job: Job, credentials: Credentials) -> tuple[float, list[HostRecord]]:
    """Run the job; its wall time and one record per device, in the job's order."""
    nornir_ncclient.register()
    if INVENTORY_PLUGIN not in InventoryPluginRegister.available:
        InventoryPluginRegister.register(INVENTORY_PLUGIN, JobInventory)
    hosts = nornir_hosts(job)

    job_started = time.perf_counter()
    nr = InitNornir(
        runner={"plugin": "threaded", "options": {"num_workers": job.workers}},
        inventory={"plugin": INVENTORY_PLUGIN, "options": {"hosts": hosts}},
        # Nornir's own log file (nornir.log in the working directory) is off; what the
        # libraries log goes to the program's error output.
        logging={"enabled": False},
    )
    nr.inventory.defaults.username = credentials.username
    nr.inventory.defaults.password = credentials.password
    results = nr.run(task=device_task, name="fleet_job", job=job, job_started=job_started)
    wall_s = time.perf_counter() - job_started
    return wall_s, [_record(host.name, results.get(host.name)) for host in job.hosts]
