"""What a plan measures: its modes with its clients (and what a client cannot do), swept
over each mode's parameters."""

import ssl
from collections.abc import Sequence
from dataclasses import dataclass

from bench_runner.modes.catalog import CLIENT_SCOPE, LIBRARIES
from bench_runner.modes.mode import Mode
from bench_runner.modes.registry import (
    ALL_MODES,
    DEFAULT_MODE_NAMES,
    MODE_NAMES,
    MODES_BY_NAME,
    clients,
    find,
    transports_of,
)
from bench_runner.modes.row import Parameters, RestconfEncoding
from bench_runner.payloads import BulkSize
from bench_runner.protocols.netconf.messages import Framing

FLOOR = "floor"
ALL_CLIENTS = "all"


@dataclass(frozen=True)
class NotApplicableEntry:
    mode: str
    client: str
    reason: str


@dataclass(frozen=True)
class Selection:
    modes: list[Mode]
    not_applicable: list[NotApplicableEntry]


def select_modes(names: list[str] | None, clients_asked: list[str] | None = None) -> Selection:
    """Measurements for mode ``names`` (all floor modes for ``["all"]``, and the fleet or
    relayed modes named beside ``all``; the default six when None) and ``clients_asked``
    (``floor``, ``all`` or library names; default ``floor``).

    Order: modes as given, each with the floor client first, then the libraries in the
    order given. A requested library without an implementation of a mode of its transport
    is reported as not applicable. Unknown mode or client names raise KeyError.
    """
    if names is None:
        mode_names = list(DEFAULT_MODE_NAMES)
    elif "all" in names:
        # ``all`` with modes it leaves out (fleet, relayed) named beside it: all of them.
        mode_names = [*MODE_NAMES, *(name for name in names if name not in {"all", *MODE_NAMES})]
    else:
        mode_names = names
    unknown = [name for name in mode_names if name not in MODES_BY_NAME]
    if unknown:
        raise KeyError(f"unknown mode(s): {', '.join(unknown)}; known: {', '.join(MODE_NAMES)}")
    requested = clients_asked or [FLOOR]
    if ALL_CLIENTS in requested:
        requested = [FLOOR, *LIBRARIES]
    known_clients = {FLOOR, *clients()}
    unknown = [client for client in requested if client not in known_clients]
    if unknown:
        raise KeyError(
            f"unknown client(s): {', '.join(unknown)}; known: "
            f"{FLOOR}, {ALL_CLIENTS}, {', '.join(sorted(known_clients - {FLOOR}))}"
        )

    selected: list[Mode] = []
    not_applicable: list[NotApplicableEntry] = []
    for name in mode_names:
        floor_mode = MODES_BY_NAME[name]
        for client in requested:
            if client in (FLOOR, floor_mode.client):
                if floor_mode not in selected:
                    selected.append(floor_mode)
                continue
            match = find(name, client)
            if match is not None:
                selected.append(match)
            elif floor_mode.transport.value in transports_of(client):
                reason = f"{client}: {CLIENT_SCOPE.get(client, 'no implementation')}"
                not_applicable.append(NotApplicableEntry(name, client, reason))
    return Selection(selected, not_applicable)


def sweep_netconf(modes: list[Mode], framings: list[Framing], reply_sizes: list[int]) -> list[Mode]:
    """Each NETCONF mode once per framing x reply size (in that order, right where it was
    selected); a mode whose replies do not depend on the size (``netconf/edit-commit``)
    once per framing. Other modes are kept as they are."""
    swept: list[Mode] = []
    for mode in modes:
        if mode.row.mode.parameters not in (Parameters.NETCONF, Parameters.NETCONF_FRAMING):
            swept.append(mode)
            continue
        variants: dict[str, Mode] = {}
        for framing in framings:
            for size in reply_sizes:
                variant = mode.with_netconf(framing, size)
                variants.setdefault(variant.label(), variant)
        swept.extend(variants.values())
    return swept


def sweep_bulk_sizes(modes: list[Mode], sizes: list[BulkSize]) -> list[Mode]:
    """Each bulk download (``tunnel/bulk``, ``https/bulk``) once per size, in the order
    given."""
    swept: list[Mode] = []
    for mode in modes:
        if mode.row.mode.parameters is Parameters.BULK:
            swept.extend(mode.with_bulk_size(size) for size in sizes)
        else:
            swept.append(mode)
    return swept


def sweep_fleet(modes: Sequence[Mode], hosts: Sequence[int], repeats: Sequence[int]) -> list[Mode]:
    """Each fleet measurement once per host count x repeats (in that order, where it was
    selected); other modes as they are."""
    swept: list[Mode] = []
    for mode in modes:
        if mode.row.mode.parameters is Parameters.FLEET:
            swept.extend(mode.with_fleet(h, r) for h in hosts for r in repeats)
        else:
            swept.append(mode)
    return swept


def sweep_restconf_encodings(
    modes: Sequence[Mode], encodings: Sequence[RestconfEncoding]
) -> list[Mode]:
    """Each RESTCONF read once per encoding (in the order given, where it was selected);
    other modes as they are."""
    swept: list[Mode] = []
    for mode in modes:
        if mode.row.mode.parameters is Parameters.RESTCONF_ENCODING:
            swept.extend(mode.with_restconf_encoding(encoding) for encoding in encodings)
        else:
            swept.append(mode)
    return swept


def client_versions() -> dict[str, str]:
    """Every client the runner can drive, with its version, and the OpenSSL the TLS
    clients use. A client whose version comes from its library (ssh2-python's libssh2,
    goclient's answer) imports or runs it here."""
    versions: dict[str, str] = {}
    for mode in ALL_MODES:
        versions.setdefault(mode.client, mode.client_version())
    versions["openssl"] = ssl.OPENSSL_VERSION
    return versions
