"""gNMI held with pygnmi (grpcio), the in-process gNMI library. The lab's floor client,
grpc-go, runs in a program of its own, one channel per process (goclient-gnmi): holding N
channels there would measure N Go runtimes, not N connections, so a hold uses pygnmi in the
runner's process, as clibench measures in-process.

Setup is what ``gNMIclient.connect`` costs (clients/pygnmi_gnmi.py: the certificate fetched
over a TLS connection of its own, the channel until ready, Capabilities). Each channel gets
a subchannel pool of its own (``grpc.use_local_subchannel_pool``): grpcio otherwise shares
one TCP connection between channels to the same target with the same arguments. One
operation is a Get of the first interface's configuration (JSON_IETF), as gnmi/reuse-conn
reads; the interfaces are listed once before a step, not timed. grpcio blocks, so each
connection's calls run in a worker thread; a step sizes the pool to its connections, so no
call waits for a thread."""

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version as distribution_version
from typing import Any

from bench_runner.modes.base import Target
from bench_runner.modes.clients.pygnmi_gnmi import connected, discover, get_config, in_thread

OWN_CONNECTION = (("grpc.use_local_subchannel_pool", 1),)
SPARE_THREADS = 4
"""Beyond one per connection: the interface listing, the metrics scrape's resolver."""


class _Held:
    def __init__(self, client: Any, interface: str, setup_s: float) -> None:
        self._client = client
        self._interface = interface
        self.setup_s = setup_s

    async def operate(self) -> None:
        await in_thread(get_config, self._client, [self._interface])

    async def close(self) -> None:
        await in_thread(self._client.close)


class GnmiTransport:
    client = "pygnmi"
    operation = "Get of one interface's config (JSON_IETF) on the kept channel"

    def __init__(self, target: Target) -> None:
        self._target = target
        self.port = target.gnmi_port
        self._interface: str | None = None

    def version(self) -> str:
        """``0.8.15 (grpcio 1.85.3)``: grpcio is what carries the channels."""
        return f"{distribution_version('pygnmi')} (grpcio {distribution_version('grpcio')})"

    async def prepare(self, connections: int) -> None:
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=connections + SPARE_THREADS)
        )
        if self._interface is None:
            client = await in_thread(connected, self._target)
            try:
                self._interface = (await in_thread(discover, client))[0].name
            finally:
                await in_thread(client.close)

    async def open(self) -> _Held:
        assert self._interface is not None, "prepare() lists the interfaces first"
        started = time.perf_counter()
        client = await in_thread(connected, self._target, OWN_CONNECTION)
        return _Held(client, self._interface, time.perf_counter() - started)


def transport(target: Target) -> GnmiTransport:
    return GnmiTransport(target)
