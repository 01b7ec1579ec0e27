"""A load run's state, shared by its users and Locust's event hooks (lab.py) and read by
what the run writes (results.py): the inventory, the run's identity, the per-second
collector, the resource samples, a sweep's steps and the sinks."""

import itertools
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from transport_load.inventory import Device, Inventory, device_for, lab_device
from transport_load.sinks import InfluxSink, PushgatewaySink
from transport_load.stats import Collector
from transport_load.transports import COMMAND

SAMPLE_TIME = "time"
"""A resource sample's Unix time (its point's timestamp); its other keys are the
``load_resources`` fields (influx_schema.LoadResourcesField)."""


@dataclass
class StepWindow:
    transport: str
    users: int
    started: float
    ramped: float | None = None
    ended: float | None = None
    interval_ms: float | None = None
    """gnmi-stream: the sample interval of the step's subscriptions."""


@dataclass
class LabState:
    inventory: Inventory = field(default_factory=lab_device)
    profile: str = "unknown"
    run_id: str = ""
    kind: str = "load"
    command: str = COMMAND
    plan: str = ""
    """The plan the run belongs to (a reproduction's), recorded in results.json."""
    results_dir: Path = Path("/results")
    role: str = "local"
    collector: Collector = field(default_factory=Collector)
    _counter: "itertools.count[int]" = field(default_factory=itertools.count)
    worker_index: int = 0
    workers: int = 1
    started_at: datetime | None = None
    context: dict[str, Any] = field(default_factory=dict)
    resources: list[dict[str, float]] = field(default_factory=list)
    device_gnmi: list[dict[str, float]] = field(default_factory=list)
    """The device's gNMI counters (context.GNMI_METRICS) each second, with SAMPLE_TIME."""
    steps: list[StepWindow] = field(default_factory=list)
    influx: InfluxSink | None = None
    pushgateway: PushgatewaySink | None = None
    written: dict[tuple[int, tuple[str, str, str]], int] = field(default_factory=dict)
    """(second, key) -> requests of the point last written for it."""
    finished: bool = False
    web_ui_limit_s: float | None = None
    """With the web UI: how long a test may run at most. The form's run time may be cleared
    or raised; this bound (the run time the lab was started with) holds anyway."""
    workers_seen: int = 0
    """Most workers connected at once (the master; they are gone by the end)."""

    def next_device(self) -> Device:
        return device_for(
            self.inventory.devices, next(self._counter), self.worker_index, self.workers
        )
