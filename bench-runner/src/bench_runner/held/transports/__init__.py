"""Each transport's held connection, with its floor client's own connection and operation
code (bench_runner.modes.clients): how one is opened, what one operation is, how it closes.
A transport's module is imported only when a sweep of it runs, so the command line loads no
client library it does not use."""

import importlib
from typing import Protocol

from bench_runner.modes.base import Target

HELD_COMMAND = "show clock"
"""The CLI command SSH executes and HTTPS requests: the device's smallest answer."""


class HeldConnection(Protocol):
    setup_s: float
    """How long its setup took, up to where it can carry an operation."""

    async def operate(self) -> None:
        """One operation; raises on a failed or wrong answer."""
        ...

    async def close(self) -> None: ...


class HeldTransport(Protocol):
    client: str
    operation: str
    """What one operation is, in words (hold.json's ``operation``)."""
    port: int

    def version(self) -> str: ...

    async def prepare(self, connections: int) -> None:
        """Before a step's connections open (not timed)."""
        ...

    async def open(self) -> HeldConnection: ...


_MODULES = {
    "ssh": "bench_runner.held.transports.ssh",
    "https": "bench_runner.held.transports.https",
    "netconf": "bench_runner.held.transports.netconf",
    "gnmi": "bench_runner.held.transports.gnmi",
}


def held_transport(name: str, target: Target) -> HeldTransport:
    module = importlib.import_module(_MODULES[name])
    transport: HeldTransport = module.transport(target)
    return transport
