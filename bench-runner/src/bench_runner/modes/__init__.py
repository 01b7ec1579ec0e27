"""The measured modes and clients: a declarative catalog (``catalog/``: one row per (mode,
client) with its round-trip bounds and their evidence), looked up by ``registry`` and chosen
by ``selection``. A row names the plugin that opens its session (``clients/``), imported only
when a mode of that client runs: importing this package imports no client library."""

from bench_runner.modes.base import PerIteration, Relay, Session, Target, Transport
from bench_runner.modes.mode import Mode
from bench_runner.modes.registry import (
    ALL_MODES,
    DEFAULT_MODE_NAMES,
    FLEET_MODES,
    FLOOR_MODES,
    LIBRARY_MODES,
    MODE_NAMES,
    MODES_BY_NAME,
    RELAYED_MODES,
)
from bench_runner.modes.selection import (
    NotApplicableEntry,
    Selection,
    client_versions,
    select_modes,
    sweep_bulk_sizes,
    sweep_fleet,
    sweep_netconf,
    sweep_restconf_encodings,
)

__all__ = [
    "ALL_MODES",
    "DEFAULT_MODE_NAMES",
    "FLEET_MODES",
    "FLOOR_MODES",
    "LIBRARY_MODES",
    "MODES_BY_NAME",
    "MODE_NAMES",
    "RELAYED_MODES",
    "Mode",
    "NotApplicableEntry",
    "PerIteration",
    "Relay",
    "Selection",
    "Session",
    "Target",
    "Transport",
    "client_versions",
    "select_modes",
    "sweep_bulk_sizes",
    "sweep_fleet",
    "sweep_netconf",
    "sweep_restconf_encodings",
]
