"""The measured modes and clients, in the order a run executes them.

A measurement is a (mode, client) pair: the mode says what one iteration does (and its
round-trip lower bound), the client which library does it. ``DEFAULT_MODES`` is what a run
measures without a plan or ``--modes``: the six original modes with their floor clients
(kept stable: dashboards and the end-to-end test rely on it).
"""

import ssl
from dataclasses import dataclass

from bench_runner.modes.base import Mode, Session, Target, Transport
from bench_runner.modes.bulk import BulkDownload, BulkSize
from bench_runner.modes.fleet_exec import FLEET_MODES, FleetShowVersion, sweep_fleet
from bench_runner.modes.go_clients import (
    SCRAPLIGO_SCOPE,
    ScrapligoNetconfEditCommit,
    ScrapligoNetconfFreshSession,
    ScrapligoNetconfReuseSession,
    ScrapligoPtyFresh,
)
from bench_runner.modes.https import (
    HttpsBatch,
    HttpsFreshConnection,
    HttpsKeepAlive,
    HttpsMultiCommand,
    HttpsRestconfGet,
    HttpsTlsResume,
)
from bench_runner.modes.https_bulk import HttpsBulk, RequestsBulk
from bench_runner.modes.https_libraries import (
    RequestsBatch,
    RequestsFreshConnection,
    RequestsKeepAlive,
    RequestsRestconfGet,
)
from bench_runner.modes.netconf import (
    Framing,
    NetconfBatchRpc,
    NetconfEditCommit,
    NetconfFreshSession,
    NetconfMode,
    NetconfReuseSession,
)
from bench_runner.modes.netconf_libraries import (
    NcclientBatchRpc,
    NcclientEditCommit,
    NcclientFreshSession,
    NcclientReuseSession,
    ScrapliNetconfEditCommit,
    ScrapliNetconfFreshSession,
    ScrapliNetconfParamikoEditCommit,
    ScrapliNetconfParamikoFreshSession,
    ScrapliNetconfParamikoReuseSession,
    ScrapliNetconfReuseSession,
    ScrapliNetconfSsh2EditCommit,
    ScrapliNetconfSsh2FreshSession,
    ScrapliNetconfSsh2ReuseSession,
    ScrapliNetconfSystemEditCommit,
    ScrapliNetconfSystemFreshSession,
    ScrapliNetconfSystemReuseSession,
)
from bench_runner.modes.ssh_exec import SshBatchExec, SshFreshConnection, SshReuseConnection
from bench_runner.modes.ssh_libraries import (
    NetmikoPtyFresh,
    OpensshBatchExec,
    OpensshFreshConnection,
    OpensshReuseConnection,
    ParamikoBatchExec,
    ParamikoFreshConnection,
    ParamikoReuseConnection,
    ScrapliParamikoPtyFresh,
    ScrapliPtyFresh,
    ScrapliSsh2PtyFresh,
    ScrapliSystemPtyFresh,
)
from bench_runner.modes.ssh_native import (
    PSSH_SCOPE,
    PsshLibsshBatchExec,
    PsshLibsshFreshConnection,
    PsshLibsshPtyFresh,
    PsshLibsshPtyReuse,
    PsshLibsshReuseConnection,
    PsshNativeBatchExec,
    PsshNativeFreshConnection,
    PsshNativePtyFresh,
    PsshNativePtyReuse,
    PsshNativeReuseConnection,
    Ssh2BatchExec,
    Ssh2FreshConnection,
    Ssh2PtyFresh,
    Ssh2PtyReuse,
    Ssh2ReuseConnection,
    Ssh2TunnelBulk,
    Ssh2TunnelRequest,
)
from bench_runner.modes.ssh_pty import SshPtyFresh, SshPtyReuse
from bench_runner.modes.tunnel import (
    OpensshTunnelBulk,
    OpensshTunnelRequest,
    ParamikoTunnelBulk,
    ParamikoTunnelRequest,
    TunnelBulk,
    TunnelRequest,
)

DEFAULT_MODES: tuple[Mode, ...] = (
    SshFreshConnection(),
    SshReuseConnection(),
    SshPtyFresh(),
    HttpsFreshConnection(),
    HttpsKeepAlive(),
    HttpsBatch(),
)

FLOOR_MODES: tuple[Mode, ...] = (
    SshFreshConnection(),
    SshReuseConnection(),
    SshBatchExec(),
    SshPtyFresh(),
    SshPtyReuse(),
    HttpsFreshConnection(),
    HttpsKeepAlive(),
    HttpsBatch(),
    HttpsMultiCommand(),
    HttpsTlsResume(),
    HttpsRestconfGet(),
    HttpsBulk(),
    NetconfFreshSession(),
    NetconfReuseSession(),
    NetconfBatchRpc(),
    NetconfEditCommit(),
    TunnelBulk(),
    TunnelRequest(),
)

LIBRARY_MODES: tuple[Mode, ...] = (
    ParamikoFreshConnection(),
    ParamikoReuseConnection(),
    ParamikoBatchExec(),
    OpensshFreshConnection(),
    OpensshReuseConnection(),
    OpensshBatchExec(),
    NetmikoPtyFresh(),
    ScrapliPtyFresh(),
    RequestsFreshConnection(),
    RequestsKeepAlive(),
    RequestsBatch(),
    RequestsRestconfGet(),
    RequestsBulk(),
    NcclientFreshSession(),
    NcclientReuseSession(),
    NcclientBatchRpc(),
    NcclientEditCommit(),
    ScrapliNetconfFreshSession(),
    ScrapliNetconfReuseSession(),
    ScrapliNetconfEditCommit(),
    OpensshTunnelBulk(),
    OpensshTunnelRequest(),
    ParamikoTunnelBulk(),
    ParamikoTunnelRequest(),
    # libssh2 / libssh (ssh_native.py)
    Ssh2FreshConnection(),
    Ssh2ReuseConnection(),
    Ssh2BatchExec(),
    Ssh2PtyFresh(),
    Ssh2PtyReuse(),
    Ssh2TunnelBulk(),
    Ssh2TunnelRequest(),
    PsshNativeFreshConnection(),
    PsshNativeReuseConnection(),
    PsshNativeBatchExec(),
    PsshNativePtyFresh(),
    PsshNativePtyReuse(),
    PsshLibsshFreshConnection(),
    PsshLibsshReuseConnection(),
    PsshLibsshBatchExec(),
    PsshLibsshPtyFresh(),
    PsshLibsshPtyReuse(),
    # scrapli's other transports (the client "scrapli" is its asyncssh transport)
    ScrapliSystemPtyFresh(),
    ScrapliParamikoPtyFresh(),
    ScrapliSsh2PtyFresh(),
    ScrapliNetconfSystemFreshSession(),
    ScrapliNetconfSystemReuseSession(),
    ScrapliNetconfSystemEditCommit(),
    ScrapliNetconfParamikoFreshSession(),
    ScrapliNetconfParamikoReuseSession(),
    ScrapliNetconfParamikoEditCommit(),
    ScrapliNetconfSsh2FreshSession(),
    ScrapliNetconfSsh2ReuseSession(),
    ScrapliNetconfSsh2EditCommit(),
    # Go: scrapligo through the goclient program (go_clients.py)
    ScrapligoPtyFresh(),
    ScrapligoNetconfFreshSession(),
    ScrapligoNetconfReuseSession(),
    ScrapligoNetconfEditCommit(),
)

ALL_MODES: tuple[Mode, ...] = FLOOR_MODES + LIBRARY_MODES + FLEET_MODES
"""Every (mode, client) pair. The fleet modes (fleet_exec.py: several devices of the lab's
fleet per iteration, with the reproduction's clients) are selected by name only: ``all``
(``MODE_NAMES``) leaves them out, as they need a fleet and measure an experiment."""
MODE_NAMES: tuple[str, ...] = tuple(dict.fromkeys(mode.name for mode in FLOOR_MODES))
MODES_BY_NAME: dict[str, Mode] = {
    mode.name: mode for mode in (*FLOOR_MODES, *(m for m in FLEET_MODES if m.floor))
}
"""Mode name -> its floor-client implementation."""
LIBRARY_CLIENTS: tuple[str, ...] = tuple(dict.fromkeys(mode.client for mode in LIBRARY_MODES))
FLOOR = "floor"
ALL_CLIENTS = "all"

# Why a library has no implementation of a mode; reported as not applicable, never as zero.
CLIENT_SCOPE: dict[str, str] = {
    "paramiko": "exec channels only here; its interactive shell is what netmiko drives",
    "openssh": "exec only (ssh user@host cmd); interactive PTY sessions need a pexpect-style "
    "driver, which is what netmiko and scrapli are",
    "netmiko": "drives interactive PTY sessions only, one per connection (ConnectHandler)",
    "scrapli": "drives interactive PTY sessions only, one per connection (driver.open)",
    "requests": "synchronous, one request at a time per call, no TLS session resumption API",
    "httpx": "no API to offer a saved TLS session (resumption)",
    "python-ssl": "used for TLS session resumption only",
    "scrapli-netconf": "waits for each reply before the next RPC (no pipelining)",
    "scrapli-system": "drives interactive PTY sessions only, one per connection (driver.open)",
    "scrapli-paramiko": "drives interactive PTY sessions only, one per connection (driver.open)",
    "scrapli-ssh2": "drives interactive PTY sessions only, one per connection (driver.open)",
    "scrapli-netconf-system": "waits for each reply before the next RPC (no pipelining)",
    "scrapli-netconf-paramiko": "waits for each reply before the next RPC (no pipelining)",
    "scrapli-netconf-ssh2": "waits for each reply before the next RPC (no pipelining)",
    "parallel-ssh-native": PSSH_SCOPE,
    "parallel-ssh-libssh": PSSH_SCOPE,
    "scrapligo": SCRAPLIGO_SCOPE,
}


@dataclass(frozen=True)
class NotApplicableEntry:
    mode: str
    client: str
    reason: str


@dataclass(frozen=True)
class Selection:
    modes: list[Mode]
    not_applicable: list[NotApplicableEntry]


def _transport_of(name: str) -> str:
    return name.split("/", 1)[0]


def select_modes(names: list[str] | None, clients: list[str] | None = None) -> Selection:
    """Measurements for mode ``names`` (all floor modes for ``["all"]``; the default six
    when None) and ``clients`` (``floor``, ``all`` or library names; default ``floor``).

    Order: modes as given, each with the floor client first, then the libraries in the
    order given. A requested library without an implementation of a mode of its transport
    is reported as not applicable. Unknown mode or client names raise KeyError.
    """
    if names is None:
        mode_names = [mode.name for mode in DEFAULT_MODES]
    elif names == ["all"]:
        mode_names = list(MODE_NAMES)
    else:
        mode_names = names
    unknown = [name for name in mode_names if name not in MODES_BY_NAME]
    if unknown:
        raise KeyError(f"unknown mode(s): {', '.join(unknown)}; known: {', '.join(MODE_NAMES)}")
    requested = clients or [FLOOR]
    if ALL_CLIENTS in requested:
        requested = [FLOOR, *LIBRARY_CLIENTS]
    known_clients = {FLOOR, *LIBRARY_CLIENTS, *(mode.client for mode in FLOOR_MODES)}
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
            match = next((m for m in ALL_MODES if m.name == name and m.client == client), None)
            if match is not None:
                selected.append(match)
            elif _transport_of(name) in _transports_of(client):
                not_applicable.append(
                    NotApplicableEntry(
                        name, client, f"{client}: {CLIENT_SCOPE.get(client, 'no implementation')}"
                    )
                )
    return Selection(selected, not_applicable)


def sweep_netconf(modes: list[Mode], framings: list[Framing], reply_sizes: list[int]) -> list[Mode]:
    """Each NETCONF mode once per framing x reply size (in that order, right where it was
    selected); a mode whose parameters ignore the reply size (``netconf/edit-commit``)
    once per framing. Other modes are kept as they are."""
    swept: list[Mode] = []
    for mode in modes:
        if not isinstance(mode, NetconfMode):
            swept.append(mode)
            continue
        variants: dict[str, Mode] = {}
        for framing in framings:
            for size in reply_sizes:
                variant = mode.with_parameters(framing, size)
                variants.setdefault(variant.label(), variant)
        swept.extend(variants.values())
    return swept


def sweep_bulk_sizes(modes: list[Mode], sizes: list[BulkSize]) -> list[Mode]:
    """Each bulk download measurement (``tunnel/bulk``, ``https/bulk``) once per download
    size, in the order given."""
    swept: list[Mode] = []
    for mode in modes:
        if isinstance(mode, BulkDownload):
            swept.extend(mode.with_size(size) for size in sizes)
        else:
            swept.append(mode)
    return swept


def client_versions() -> dict[str, str]:
    """Every client the runner can drive, with its version (OpenSSH from ``ssh -V``), and
    the OpenSSL the TLS clients use."""
    versions: dict[str, str] = {}
    for mode in ALL_MODES:
        versions.setdefault(mode.client, mode.client_version())
    versions["openssl"] = ssl.OPENSSL_VERSION
    return versions


# Transports a client has no mode of at all, yet is asked about (listed as not applicable).
OTHER_SCOPE: dict[str, set[str]] = {
    "parallel-ssh-native": {Transport.TUNNEL.value},
    "parallel-ssh-libssh": {Transport.TUNNEL.value},
}


def _transports_of(client: str) -> set[str]:
    implemented = {mode.transport.value for mode in ALL_MODES if mode.client == client}
    return implemented | OTHER_SCOPE.get(client, set())


__all__ = [
    "ALL_MODES",
    "DEFAULT_MODES",
    "FLEET_MODES",
    "FLOOR_MODES",
    "LIBRARY_MODES",
    "MODES_BY_NAME",
    "MODE_NAMES",
    "BulkDownload",
    "FleetShowVersion",
    "Mode",
    "NetconfMode",
    "NotApplicableEntry",
    "Selection",
    "Session",
    "Target",
    "Transport",
    "TunnelBulk",
    "client_versions",
    "select_modes",
    "sweep_bulk_sizes",
    "sweep_fleet",
    "sweep_netconf",
]
