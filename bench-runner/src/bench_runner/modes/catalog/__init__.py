"""The catalog: every mode's definition and one row per (mode, client), in the order a run
executes them (each transport's floor client first, then the libraries), and what each
client cannot do. Pure data: reading it imports no client library."""

from bench_runner.modes.catalog import fleet, https, netconf, ssh, tunnel
from bench_runner.modes.catalog.clients import (
    CLIENT_SCOPE,
    FLOOR_CLIENTS,
    LIBRARIES,
    UNSUPPORTED_TRANSPORTS,
)
from bench_runner.modes.row import ModeDefinition, Row

DEFINITIONS: tuple[ModeDefinition, ...] = (
    *ssh.DEFINITIONS,
    *https.DEFINITIONS,
    *netconf.DEFINITIONS,
    *tunnel.DEFINITIONS,
    *fleet.DEFINITIONS,
)
ROWS: tuple[Row, ...] = (*ssh.ROWS, *https.ROWS, *netconf.ROWS, *tunnel.ROWS, *fleet.ROWS)

__all__ = [
    "CLIENT_SCOPE",
    "DEFINITIONS",
    "FLOOR_CLIENTS",
    "LIBRARIES",
    "ROWS",
    "UNSUPPORTED_TRANSPORTS",
]
