"""The catalog: every mode's definition and one row per (mode, client), in YAML, one file per
transport (``ssh.yaml``, ``https.yaml``, ``netconf.yaml``, ``tunnel.yaml``, ``h3.yaml``,
``fleet.yaml``, ``jump.yaml``, ``proxy.yaml``), in the order a run executes them; and the
clients (``clients.yaml``): their order and what each cannot do. Pure data: reading it
imports no client library."""

from bench_runner.modes.catalog.loader import clients, transport_catalog
from bench_runner.modes.row import ModeDefinition, Row

_TRANSPORTS = (
    "ssh",
    "https",
    "netconf",
    "tunnel",
    "h3",
    "gnmi",
    "restconf",
    "fleet",
    "jump",
    "proxy",
)
_CATALOGS = [transport_catalog(name) for name in _TRANSPORTS]

DEFINITIONS: tuple[ModeDefinition, ...] = tuple(d for defs, _ in _CATALOGS for d in defs)
ROWS: tuple[Row, ...] = tuple(row for _, rows in _CATALOGS for row in rows)

_CLIENTS = clients()
FLOOR_CLIENTS = _CLIENTS.floor
"""Minimal overhead: what a transport costs with the least a client can add."""
LIBRARIES = _CLIENTS.libraries
"""The libraries people use, in the order they run within a mode."""
CLIENT_SCOPE = _CLIENTS.not_applicable
UNSUPPORTED_TRANSPORTS = _CLIENTS.unsupported_transports

__all__ = [
    "CLIENT_SCOPE",
    "DEFINITIONS",
    "FLOOR_CLIENTS",
    "LIBRARIES",
    "ROWS",
    "UNSUPPORTED_TRANSPORTS",
]
