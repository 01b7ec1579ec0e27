"""The catalog as the runner looks it up: every measurement with its default parameters,
the floor client of each mode, the libraries, and the modes a run measures by default."""

from bench_runner.modes.catalog import FLOOR_CLIENTS, LIBRARIES, ROWS, UNSUPPORTED_TRANSPORTS
from bench_runner.modes.mode import Mode
from bench_runner.modes.row import Parameters

DEFAULT_MODE_NAMES: tuple[str, ...] = (
    "ssh/fresh-conn",
    "ssh/reuse-conn",
    "ssh/pty-fresh",
    "https/fresh-conn",
    "https/keep-alive",
    "https/batch-post",
)
"""What a run measures without a plan or ``--modes``, with the floor clients: the six
original modes (kept stable: dashboards and the end-to-end test rely on them)."""

_EVERY = tuple(Mode.of(row) for row in ROWS)

FLEET_MODES: tuple[Mode, ...] = tuple(
    mode for mode in _EVERY if mode.row.mode.parameters is Parameters.FLEET
)
"""Several devices of the lab's fleet per iteration, with the reproduction's clients:
selected by name only (``all`` leaves them out: they need a fleet and measure an
experiment)."""
RELAYED_MODES: tuple[Mode, ...] = tuple(
    sorted(
        (mode for mode in _EVERY if mode.relayed),
        key=lambda mode: -1 if mode.floor else LIBRARIES.index(mode.client),
    )
)
"""Through the remote site's jump host or head-end: selected by name only (``all`` leaves
them out: they run in a job of their own, under a WAN and a LAN profile)."""
_SELECTED_BY_NAME = (*FLEET_MODES, *RELAYED_MODES)
FLOOR_MODES: tuple[Mode, ...] = tuple(
    mode for mode in _EVERY if mode.floor and mode not in _SELECTED_BY_NAME
)
LIBRARY_MODES: tuple[Mode, ...] = tuple(
    sorted(
        (mode for mode in _EVERY if not mode.floor and mode not in _SELECTED_BY_NAME),
        key=lambda mode: LIBRARIES.index(mode.client),
    )
)
ALL_MODES: tuple[Mode, ...] = FLOOR_MODES + LIBRARY_MODES + FLEET_MODES + RELAYED_MODES
"""Every (mode, client) pair."""

MODE_NAMES: tuple[str, ...] = tuple(mode.name for mode in FLOOR_MODES)
MODES_BY_NAME: dict[str, Mode] = {
    mode.name: mode for mode in (*FLOOR_MODES, *(m for m in _SELECTED_BY_NAME if m.floor))
}
"""Mode name -> its floor-client measurement."""


def find(name: str, client: str) -> Mode | None:
    """The measurement of mode ``name`` with ``client``; None when the client has none."""
    return next((m for m in ALL_MODES if m.name == name and m.client == client), None)


def transports_of(client: str) -> set[str]:
    """The transports a client speaks: those it has rows for, and those it is asked about
    without having any (not applicable there)."""
    implemented = {mode.transport.value for mode in ALL_MODES if mode.client == client}
    return implemented | {t.value for t in UNSUPPORTED_TRANSPORTS.get(client, frozenset())}


def clients() -> tuple[str, ...]:
    """Every client, floor clients first, in the order they run within a mode."""
    return (*FLOOR_CLIENTS, *LIBRARIES)
