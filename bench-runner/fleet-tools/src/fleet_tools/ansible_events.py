"""ansible-runner's events as per-device records. Pure: events in (decoded JSON, as
``Runner.events`` yields them), HostRecords out.

What counts, per device:

* the host events ``runner_on_ok``, ``runner_on_failed`` and ``runner_on_unreachable``
  (skipped tasks, e.g. the other platform's, and per-item events are left out: a loop's
  task ends with one ``runner_on_ok`` holding every item);
* ``elapsed_s``: the sum of their ``event_data.end - event_data.start`` (the callback's
  ``duration``), i.e. the device's time in the playbook's tasks;
* ``started_s``: its first task's start, from the job's start;
* ``changed``: whether any task changed something (None when the device failed);
* ``outputs``: from the tasks that run the operation's module (OUTPUT_MODULES);
* ``ok``: at least one task ran and none failed (unless ``ignore_errors``) or was unreachable.
"""

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fleet_tools.protocol import HostRecord, bounded

HOST_EVENTS = ("runner_on_ok", "runner_on_failed", "runner_on_unreachable")

OUTPUT_MODULES: dict[str, frozenset[str]] = {
    "show": frozenset({"cisco.ios.ios_command", "arista.eos.eos_command"}),
    "facts": frozenset({"cisco.ios.ios_facts", "arista.eos.eos_facts"}),
    "config": frozenset({"cisco.ios.ios_config", "arista.eos.eos_config"}),
    "netconf_get": frozenset({"ansible.netcommon.netconf_get"}),
    "api_get": frozenset({"ansible.builtin.uri"}),
}
"""Per operation, the modules whose results are the device's outputs."""
ERROR_LIMIT = 2000


@dataclass
class _Host:
    elapsed_s: float = 0.0
    first_start: datetime | None = None
    tasks: int = 0
    changed: bool = False
    outputs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _when(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _duration(data: Mapping[str, Any]) -> float:
    start, end = _when(data.get("start")), _when(data.get("end"))
    if start is not None and end is not None:
        return max(0.0, (end - start).total_seconds())
    duration = data.get("duration")
    return float(duration) if isinstance(duration, int | float) else 0.0


def outputs_of(operation: str, res: Mapping[str, Any]) -> list[str]:
    """The device's outputs in one module result (a loop's results: each item's, in order)."""
    items = res.get("results")
    if isinstance(items, list):
        return [
            text
            for item in items
            if isinstance(item, Mapping)
            for text in outputs_of(operation, item)
        ]
    if operation == "show":
        stdout = res.get("stdout")
        return [str(text) for text in stdout] if isinstance(stdout, list) else []
    if operation == "facts":
        facts = res.get("ansible_facts")
        return [json.dumps(facts, sort_keys=True)] if isinstance(facts, Mapping) else []
    if operation == "config":
        # ios_config reports the lines it sent (none when the device had them): that is what
        # Ansible gives of the device's side; the session's echo is not returned.
        updates = res.get("updates")
        return ["\n".join(str(line) for line in updates)] if isinstance(updates, list) else []
    if operation == "netconf_get":
        stdout = res.get("stdout")
        return [stdout] if isinstance(stdout, str) else []
    if operation == "api_get":
        content = res.get("content")
        return [content] if isinstance(content, str) else []
    return []


def _error(kind: str, task: str, res: Mapping[str, Any]) -> str:
    message = str(res.get("msg") or kind.removeprefix("runner_on_"))
    stderr = res.get("module_stderr")
    if isinstance(stderr, str) and stderr.strip():
        message += f" | module stderr: {stderr.strip()[-500:]}"
    return f"{task}: {message}"[:ERROR_LIMIT]


def host_records(
    events: Iterable[Mapping[str, Any]],
    operation: str,
    host_names: Iterable[str],
    job_started: datetime,
    missing_error: str = "Ansible reported nothing for this device",
) -> list[HostRecord]:
    """One record per device of the job, in the job's order, from the run's events.
    ``job_started`` is an aware datetime (the callback stamps events in UTC)."""
    names = list(host_names)
    hosts = {name: _Host() for name in names}
    modules = OUTPUT_MODULES.get(operation, frozenset())
    for event in events:
        kind = event.get("event")
        if kind not in HOST_EVENTS:
            continue
        data = event.get("event_data") or {}
        state = hosts.get(str(data.get("host")))
        if state is None:
            continue
        res = data.get("res") or {}
        state.tasks += 1
        state.elapsed_s += _duration(data)
        start = _when(data.get("start"))
        if start is not None and (state.first_start is None or start < state.first_start):
            state.first_start = start
        if kind == "runner_on_ok":
            state.changed = state.changed or bool(res.get("changed"))
            if data.get("resolved_action", data.get("task_action")) in modules:
                state.outputs.extend(bounded(text) for text in outputs_of(operation, res))
        elif not (kind == "runner_on_failed" and data.get("ignore_errors")):
            state.errors.append(_error(kind, str(data.get("task", "?")), res))

    records = []
    for name in names:
        state = hosts[name]
        ok = state.tasks > 0 and not state.errors
        error = None if ok else ("; ".join(state.errors) or missing_error)[:ERROR_LIMIT]
        records.append(
            HostRecord(
                name=name,
                ok=ok,
                elapsed_s=round(state.elapsed_s, 6) if state.tasks else None,
                started_s=(
                    round((state.first_start - job_started).total_seconds(), 6)
                    if state.first_start is not None
                    else None
                ),
                changed=state.changed if ok else None,
                outputs=state.outputs,
                error=error,
            )
        )
    return records
