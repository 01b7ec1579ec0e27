"""The measured modes, in the order a run executes them."""

from bench_runner.modes.base import IterationError, Mode, Session, Target, Transport
from bench_runner.modes.https import HttpsBatch, HttpsFreshConnection, HttpsKeepAlive
from bench_runner.modes.ssh_exec import SshFreshConnection, SshReuseConnection
from bench_runner.modes.ssh_pty import SshPtyFresh

ALL_MODES: tuple[Mode, ...] = (
    SshFreshConnection(),
    SshReuseConnection(),
    SshPtyFresh(),
    HttpsFreshConnection(),
    HttpsKeepAlive(),
    HttpsBatch(),
)

MODES_BY_NAME: dict[str, Mode] = {mode.name: mode for mode in ALL_MODES}


def select_modes(names: list[str] | None) -> list[Mode]:
    """Modes by name, in the order given; all modes when ``names`` is None."""
    if names is None:
        return list(ALL_MODES)
    unknown = [name for name in names if name not in MODES_BY_NAME]
    if unknown:
        raise KeyError(f"unknown mode(s): {', '.join(unknown)}; known: {', '.join(MODES_BY_NAME)}")
    return [MODES_BY_NAME[name] for name in names]


__all__ = [
    "ALL_MODES",
    "MODES_BY_NAME",
    "IterationError",
    "Mode",
    "Session",
    "Target",
    "Transport",
    "select_modes",
]
