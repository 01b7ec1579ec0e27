"""What the runner writes to InfluxDB, as the dashboards read it (bench-runner/SCHEMA.md).

Phase and wire field names come from the runner itself, so a phase or counter it adds
appears in the regenerated dashboards (and in the diff the tests fail on).
"""

from bench_runner.phases import PHASES
from bench_runner.wire.model import FIELDS as WIRE_FIELDS
from bench_runner.wire.timeline import PARTS as TIME_PARTS

RUN = "run"
"""One point per run: tags run_id, sweep, profile, engine, plan; the annotations."""
MODE_SUMMARY = "mode_summary"
"""One point per measured series of a run."""
ITERATION = "iteration"
"""One point per measured iteration."""
VERDICT = "verdict"
"""One point per judged series of a run, at the run's start: its regression verdict
against the earlier nights (field ``verdict``, ``title`` for annotations)."""

LOAD = "load"
"""Locust load runs (load/): one point per second per (transport, mode, client)."""
LOAD_RESOURCES = "load_resources"
"""One point per second of a load run: users, the device's and the generator's resources."""
LOAD_STEP = "load_step"
"""One point per step of a load sweep, after its ramp-up; ``knee`` marks the knee."""

SERIES_TAG = "series"
"""``mode · client version · parameters``: one series, named for legends."""

NETCONF_MODES = ("netconf/fresh-session", "netconf/reuse-session", "netconf/batch-rpc")
"""NETCONF modes whose RPCs are ``<get>`` of a requested reply size."""
PIPELINED_AND_SEQUENTIAL = ("netconf/batch-rpc", "netconf/reuse-session")
BULK_MODES = ("tunnel/bulk", "https/bulk")
"""The same payload through an SSH tunnel and directly over HTTPS."""

__all__ = [
    "BULK_MODES",
    "ITERATION",
    "LOAD",
    "LOAD_RESOURCES",
    "LOAD_STEP",
    "MODE_SUMMARY",
    "NETCONF_MODES",
    "PHASES",
    "PIPELINED_AND_SEQUENTIAL",
    "RUN",
    "SERIES_TAG",
    "TIME_PARTS",
    "VERDICT",
    "WIRE_FIELDS",
]
