"""NETCONF modes with the libraries people use: ncclient (paramiko underneath, synchronous,
run in a worker thread) and scrapli-netconf (``AsyncNetconfDriver`` on asyncssh).

Both send what the floor client sends (the payload ``<get>``, the Loopback0 description
``<edit-config>`` and ``<commit>``) and honour the framing parameter: ncclient through a
device handler that offers only ``:base:1.0``, scrapli-netconf through
``preferred_netconf_version``. ncclient pipelines in its ``async_mode`` (RPCs are sent
without waiting, replies matched by message-id), so it has ``netconf/batch-rpc``;
scrapli-netconf waits for each reply (not applicable there).
"""

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from functools import partial
from importlib.metadata import version
from typing import Any

from ncclient import manager  # type: ignore[import-untyped]
from ncclient.devices.default import DefaultDeviceHandler  # type: ignore[import-untyped]
from ncclient.operations import RPCError  # type: ignore[import-untyped]
from ncclient.transport import TransportError  # type: ignore[import-untyped]
from scrapli.exceptions import ScrapliException
from scrapli_netconf.driver import AsyncNetconfDriver, NetconfDriver

from bench_runner.modes.base import ONE_PER_COMMAND, RoundTripBound, Session, Target
from bench_runner.modes.netconf import (
    NetconfBatchRpc,
    NetconfEditCommit,
    NetconfFreshSession,
    NetconfMode,
    NetconfReuseSession,
)
from bench_runner.modes.ssh_libraries import scrapli_nodelay_socket, scrapli_transport_version
from bench_runner.phases import PhaseTimer
from bench_runner.protocols.netconf.messages import (
    BASE_11,
    DESCRIPTION_FILTER,
    description_config,
    original_description,
    payload_filter,
)
from bench_runner.validation import IterationError

OPERATION_TIMEOUT_S = 60


def edit_text(edit: int) -> str:
    """The description the ``edit``-th edit sets (fixed length, like the floor client's)."""
    return f"bench-runner edit {edit:08d}"


class _Base10Handler(DefaultDeviceHandler):  # type: ignore[misc]
    """ncclient's default device handler without ``:base:1.1``: end-of-message framing."""

    def get_capabilities(self) -> list[str]:
        return [cap for cap in super().get_capabilities() if cap != BASE_11]


def _ncclient_connect(target: Target, mode: NetconfMode) -> Any:
    device_params: dict[str, Any] = (
        {"handler": _Base10Handler} if mode.framing == "1.0" else {"name": "default"}
    )
    return manager.connect(
        host=target.host,
        port=target.netconf_port,
        username=target.username,
        password=target.password,
        hostkey_verify=False,
        allow_agent=False,
        look_for_keys=False,
        device_params=device_params,
        timeout=OPERATION_TIMEOUT_S,
    )


@contextmanager
def _ncclient_errors() -> Iterator[None]:
    try:
        yield
    except (RPCError, TransportError) as exc:
        raise IterationError(f"ncclient: {type(exc).__name__}: {exc}") from exc


def _reply_xml(reply: Any, expect: str) -> str:
    text = str(reply.xml)
    if expect not in text:
        raise IterationError(f"ncclient: rpc-reply without {expect}>")
    return text


class _NcclientSession:
    """One ncclient manager (connection) per iteration (``fresh``) or kept."""

    def __init__(self, target: Target, mode: NetconfMode, *, fresh: bool) -> None:
        self._target = target
        self._mode = mode
        self._fresh = fresh
        self._manager: Any = None if fresh else _ncclient_connect(target, mode)
        self._edits = 0
        self.phases = PhaseTimer()
        self._original: str | None = None

    def _gets(self, nc: Any, count: int) -> list[str]:
        subtree = ("subtree", payload_filter(self._mode.reply_bytes))
        if not isinstance(self._mode, NetconfBatchRpc):
            return [_reply_xml(nc.get(filter=subtree), "<data") for _ in range(count)]
        nc.async_mode = True
        try:
            rpcs = [nc.get(filter=subtree) for _ in range(count)]
        finally:
            nc.async_mode = False
        outputs = []
        for rpc in rpcs:
            if not rpc.event.wait(OPERATION_TIMEOUT_S):
                raise IterationError("ncclient: no reply to a pipelined <get>")
            if rpc.error is not None:
                raise IterationError(f"ncclient: {rpc.error}")
            outputs.append(_reply_xml(rpc.reply, "<data"))
        return outputs

    def _edit_commit(self, nc: Any, count: int) -> list[str]:
        outputs = []
        for _ in range(count):
            self._edits += 1
            outputs.append(
                _reply_xml(
                    nc.edit_config(
                        config=description_config(edit_text(self._edits)),
                        target="candidate",
                        default_operation="merge",
                    ),
                    "<ok",
                )
            )
        outputs.append(_reply_xml(nc.commit(), "<ok"))
        return ["".join(outputs)]

    def _operations(self, nc: Any, count: int) -> list[str]:
        if isinstance(self._mode, NetconfEditCommit):
            return self._edit_commit(nc, count)
        return self._gets(nc, count)

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        phases = self.phases
        with _ncclient_errors():
            if not self._fresh:
                with phases.measure("rpcs"):
                    return self._operations(self._manager, len(commands))
            with phases.measure("connect"):  # manager.connect: SSH, subsystem, hellos
                nc = _ncclient_connect(self._target, self._mode)
            try:
                with phases.measure("rpcs"):
                    return self._operations(nc, len(commands))
            finally:
                with phases.measure("close"):
                    nc.close_session()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)

    def remember_description(self) -> None:
        reply = self._manager.get_config(source="running", filter=("subtree", DESCRIPTION_FILTER))
        self._original = original_description(str(reply.xml))

    def close(self) -> None:
        if self._manager is None:
            return
        try:
            if isinstance(self._mode, NetconfEditCommit):
                self._manager.edit_config(
                    config=description_config(self._original),
                    target="candidate",
                    default_operation="merge",
                )
                self._manager.commit()
        finally:
            self._manager.close_session()


@asynccontextmanager
async def _ncclient_session(
    target: Target, mode: NetconfMode, *, fresh: bool
) -> AsyncIterator[Session]:
    session = await asyncio.to_thread(_NcclientSession, target, mode, fresh=fresh)
    try:
        if isinstance(mode, NetconfEditCommit):
            await asyncio.to_thread(session.remember_description)
        yield session
    finally:
        await asyncio.to_thread(session.close)


class NcclientFreshSession(NetconfFreshSession):
    """ncclient: per iteration ``manager.connect`` (paramiko, hello exchange), one ``get``
    per command, ``close_session`` (waited for). Lower bound 4 + n round trips per
    iteration. Expected 14 + n: added delay 18.5 for 5 commands at 30 ms (README):
    manager.connect about 13 (paramiko's setup, which waits on TCP like paramiko's
    ssh/fresh-conn, plus the hellos), one per get, and close_session, which ncclient waits
    for (1). The wire shows 10 + n exchanges, as for the floor client."""

    client = "ncclient"
    floor = False
    description = (
        "ncclient; per iteration manager.connect, one get (payload filter) per "
        "command, close_session"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=14)

    def client_version(self) -> str:
        return version("ncclient")

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ncclient_session(target, self, fresh=True) as session:
            yield session


class NcclientReuseSession(NetconfReuseSession):
    """ncclient: one manager kept; one ``get`` per command, each after the previous reply.
    Lower bound n round trips per iteration. Expected n: one exchange per get, 5 on the wire
    and 4.8 as added delay for 5 (README)."""

    client = "ncclient"
    floor = False
    description = "ncclient; one manager kept; one get per command, each after the previous reply"
    expected_bound = ONE_PER_COMMAND

    def client_version(self) -> str:
        return version("ncclient")

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ncclient_session(target, self, fresh=False) as session:
            yield session


class NcclientBatchRpc(NetconfBatchRpc):
    """ncclient: one manager kept; ``async_mode`` on, so the n ``get`` RPCs go out without
    waiting, then every reply is awaited. Lower bound 1 round trip per iteration. Expected
    n, where the mode's floor is 1: ncclient's session thread writes one queued message per
    turn of its loop and then waits in select() for input (ncclient/transport/session.py,
    TICK 0.1 s), so with async_mode the next get leaves only once the previous reply
    arrived: one round trip per get, counted on the wire (5 for 5) and as added delay (5.0;
    README)."""

    client = "ncclient"
    floor = False
    description = (
        "ncclient; one manager kept; async_mode: the get of every command sent "
        "without waiting, replies awaited in order"
    )
    expected_bound = ONE_PER_COMMAND

    def client_version(self) -> str:
        return version("ncclient")

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ncclient_session(target, self, fresh=False) as session:
            yield session


class NcclientEditCommit(NetconfEditCommit):
    """ncclient: one manager kept; per command ``edit_config`` (merge into the candidate,
    Loopback0 description), then ``commit``; the description is restored at the end. Lower
    bound n + 1 round trips per iteration. Expected n + 1: each edit and the commit wait for
    their reply, 6 for 5 on the wire and as added delay (README)."""

    client = "ncclient"
    floor = False
    description = (
        "ncclient; one manager kept; per command edit_config (candidate, merge), then commit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=1)

    def client_version(self) -> str:
        return version("ncclient")

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _ncclient_session(target, self, fresh=False) as session:
            yield session


SCRAPLI_NETCONF_TRANSPORTS = {
    "scrapli-netconf": "asyncssh",
    "scrapli-netconf-system": "system",
    "scrapli-netconf-paramiko": "paramiko",
    "scrapli-netconf-ssh2": "ssh2",
}
"""Client name -> scrapli transport plugin; ``scrapli-netconf`` is the asyncssh one, as it
has been since the first results."""


class _SyncNetconf:
    """A synchronous ``NetconfDriver`` (system, paramiko, ssh2 transports) behind the
    awaitable calls the session makes, each run in a worker thread."""

    def __init__(self, driver: NetconfDriver, target: Target) -> None:
        self._driver = driver
        self._target = target

    def _open(self) -> None:
        if self._driver.transport_name in ("paramiko", "ssh2"):
            scrapli_nodelay_socket(
                self._driver.transport,
                self._target.host,
                self._target.netconf_port,
                OPERATION_TIMEOUT_S,
            )
        self._driver.open()

    async def open(self) -> None:
        await asyncio.to_thread(self._open)

    async def close(self) -> None:
        await asyncio.to_thread(self._driver.close)

    async def get(self, **kwargs: Any) -> Any:
        return await asyncio.to_thread(partial(self._driver.get, **kwargs))

    async def get_config(self, **kwargs: Any) -> Any:
        return await asyncio.to_thread(partial(self._driver.get_config, **kwargs))

    async def edit_config(self, **kwargs: Any) -> Any:
        return await asyncio.to_thread(partial(self._driver.edit_config, **kwargs))

    async def commit(self) -> Any:
        return await asyncio.to_thread(self._driver.commit)


def _scrapli_driver(target: Target, mode: NetconfMode) -> Any:
    transport = SCRAPLI_NETCONF_TRANSPORTS[mode.client]
    options: dict[str, Any] = {
        "host": target.host,
        "port": target.netconf_port,
        "auth_username": target.username,
        "auth_password": target.password,
        "auth_strict_key": False,
        "transport": transport,
        "ssh_config_file": False,
        "preferred_netconf_version": mode.framing,
        "timeout_socket": OPERATION_TIMEOUT_S,
        "timeout_transport": OPERATION_TIMEOUT_S,
        "timeout_ops": OPERATION_TIMEOUT_S,
    }
    if transport == "asyncssh":
        return AsyncNetconfDriver(**options)
    return _SyncNetconf(NetconfDriver(**options), target)


def _scrapli_result(response: Any, expect: str) -> str:
    text = str(response.result)
    if response.failed or expect not in text:
        raise IterationError(f"scrapli-netconf: failed reply: {text[:120]!r}")
    return text


class _ScrapliSession:
    def __init__(
        self,
        target: Target,
        mode: NetconfMode,
        kept: Any,
    ) -> None:
        self._target = target
        self._mode = mode
        self._kept = kept
        self._edits = 0
        self.phases = PhaseTimer()

    async def _operations(self, conn: Any, count: int) -> list[str]:
        if not isinstance(self._mode, NetconfEditCommit):
            subtree = payload_filter(self._mode.reply_bytes)
            return [
                _scrapli_result(await conn.get(filter_=subtree, filter_type="subtree"), "<data")
                for _ in range(count)
            ]
        outputs = []
        for _ in range(count):
            self._edits += 1
            outputs.append(
                _scrapli_result(
                    await conn.edit_config(
                        config=description_config(edit_text(self._edits)), target="candidate"
                    ),
                    "<ok",
                )
            )
        outputs.append(_scrapli_result(await conn.commit(), "<ok"))
        return ["".join(outputs)]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        try:
            phases = self.phases
            if self._kept is not None:
                with phases.measure("rpcs"):
                    return await self._operations(self._kept, len(commands))
            conn = _scrapli_driver(self._target, self._mode)
            with phases.measure("connect"):  # open: SSH, subsystem, hellos
                await conn.open()
            try:
                with phases.measure("rpcs"):
                    return await self._operations(conn, len(commands))
            finally:
                with phases.measure("close"):
                    await conn.close()
        except ScrapliException as exc:
            raise IterationError(f"scrapli-netconf: {type(exc).__name__}: {exc}") from exc


@asynccontextmanager
async def _scrapli_session(
    target: Target, mode: NetconfMode, *, fresh: bool
) -> AsyncIterator[Session]:
    if fresh:
        yield _ScrapliSession(target, mode, None)
        return
    conn = _scrapli_driver(target, mode)
    await conn.open()
    original: str | None = None
    try:
        if isinstance(mode, NetconfEditCommit):
            reply = await conn.get_config(source="running", filter_=DESCRIPTION_FILTER)
            original = original_description(_scrapli_result(reply, "<data"))
        yield _ScrapliSession(target, mode, conn)
    finally:
        try:
            if isinstance(mode, NetconfEditCommit):
                await conn.edit_config(config=description_config(original), target="candidate")
                await conn.commit()
        finally:
            await conn.close()


class ScrapliNetconfFreshSession(NetconfFreshSession):
    """scrapli-netconf: per iteration ``AsyncNetconfDriver.open`` (asyncssh transport), one
    ``get`` per command, ``close`` (close-session). Lower bound 4 + n round trips per
    iteration. Expected 10 + n: added delay 15.4 for 5 commands (README); its asyncssh
    transport pays what the floor client does for the connection and hellos; the wire shows
    9 + n (it does not wait for the channel's close)."""

    client = "scrapli-netconf"
    floor = False
    description = (
        "scrapli-netconf (asyncssh transport); per iteration open, one get per command, close"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=10)

    def client_version(self) -> str:
        return scrapli_transport_version("scrapli-netconf", SCRAPLI_NETCONF_TRANSPORTS[self.client])

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _scrapli_session(target, self, fresh=True) as session:
            yield session


class ScrapliNetconfReuseSession(NetconfReuseSession):
    """scrapli-netconf: one driver kept; one ``get`` per command. Lower bound n round trips
    per iteration. Expected n: one exchange per get, 5 on the wire, 5.2 as added delay for 5
    (README)."""

    client = "scrapli-netconf"
    floor = False
    description = "scrapli-netconf (asyncssh transport); one driver kept; one get per command"
    expected_bound = ONE_PER_COMMAND

    def client_version(self) -> str:
        return scrapli_transport_version("scrapli-netconf", SCRAPLI_NETCONF_TRANSPORTS[self.client])

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _scrapli_session(target, self, fresh=False) as session:
            yield session


class ScrapliNetconfEditCommit(NetconfEditCommit):
    """scrapli-netconf: one driver kept; per command ``edit_config`` (candidate), then
    ``commit``; the description is restored at the end. Lower bound n + 1 round trips per
    iteration. Expected n + 1: each edit and the commit wait for their reply, 6 for 5
    (README)."""

    client = "scrapli-netconf"
    floor = False
    description = (
        "scrapli-netconf (asyncssh transport); one driver kept; per command "
        "edit_config (candidate), then commit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=1)

    def client_version(self) -> str:
        return scrapli_transport_version("scrapli-netconf", SCRAPLI_NETCONF_TRANSPORTS[self.client])

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _scrapli_session(target, self, fresh=False) as session:
            yield session


# --- scrapli-netconf over its other transports ----------------------------------------------


class ScrapliNetconfSystemFreshSession(ScrapliNetconfFreshSession):
    """scrapli-netconf ``NetconfDriver`` over the system transport (OpenSSH ``ssh -s
    netconf`` in a PTY scrapli drives): per iteration open, one get per command, close.
    Lower bound 4 + n. Expected 9 + n round trips, counted on the wire at local (README):
    OpenSSH's login and subsystem, the hellos, one per get."""

    client = "scrapli-netconf-system"
    description = (
        "scrapli-netconf (system transport: OpenSSH); per iteration open, one get per "
        "command, close"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=9)


class ScrapliNetconfParamikoFreshSession(ScrapliNetconfFreshSession):
    """scrapli-netconf over the paramiko transport (TCP_NODELAY socket). Lower bound 4 + n.
    Expected 8 + n round trips, counted on the wire at local (README)."""

    client = "scrapli-netconf-paramiko"
    description = (
        "scrapli-netconf (paramiko transport); per iteration open, one get per command, close"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=8)


class ScrapliNetconfSsh2FreshSession(ScrapliNetconfFreshSession):
    """scrapli-netconf over the ssh2 transport (ssh2-python, libssh2; TCP_NODELAY socket).
    Lower bound 4 + n. Expected 9 + n round trips, on the wire at local (README)."""

    client = "scrapli-netconf-ssh2"
    description = (
        "scrapli-netconf (ssh2 transport: ssh2-python); per iteration open, one get per "
        "command, close"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=9)


class ScrapliNetconfSystemReuseSession(ScrapliNetconfReuseSession):
    """scrapli-netconf (system transport): one driver kept; one get per command. Lower
    bound n. Expected n round trips (wire, README)."""

    client = "scrapli-netconf-system"
    description = "scrapli-netconf (system transport); one driver kept; one get per command"
    expected_bound = ONE_PER_COMMAND


class ScrapliNetconfParamikoReuseSession(ScrapliNetconfReuseSession):
    """scrapli-netconf (paramiko transport): one driver kept; one get per command. Lower
    bound n. Expected n round trips (wire, README)."""

    client = "scrapli-netconf-paramiko"
    description = "scrapli-netconf (paramiko transport); one driver kept; one get per command"
    expected_bound = ONE_PER_COMMAND


class ScrapliNetconfSsh2ReuseSession(ScrapliNetconfReuseSession):
    """scrapli-netconf (ssh2 transport): one driver kept; one get per command. Lower bound
    n. Expected n round trips (wire, README)."""

    client = "scrapli-netconf-ssh2"
    description = "scrapli-netconf (ssh2 transport); one driver kept; one get per command"
    expected_bound = ONE_PER_COMMAND


class ScrapliNetconfSystemEditCommit(ScrapliNetconfEditCommit):
    """scrapli-netconf (system transport): per command edit_config, then commit. Lower
    bound n + 1. Expected n + 1 round trips (wire, README)."""

    client = "scrapli-netconf-system"
    description = (
        "scrapli-netconf (system transport); one driver kept; per command edit_config "
        "(candidate), then commit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=1)


class ScrapliNetconfParamikoEditCommit(ScrapliNetconfEditCommit):
    """scrapli-netconf (paramiko transport): per command edit_config, then commit. Lower
    bound n + 1. Expected n + 1 round trips (wire, README)."""

    client = "scrapli-netconf-paramiko"
    description = (
        "scrapli-netconf (paramiko transport); one driver kept; per command edit_config "
        "(candidate), then commit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=1)


class ScrapliNetconfSsh2EditCommit(ScrapliNetconfEditCommit):
    """scrapli-netconf (ssh2 transport): per command edit_config, then commit. Lower bound
    n + 1. Expected n + 1 round trips (wire, README)."""

    client = "scrapli-netconf-ssh2"
    description = (
        "scrapli-netconf (ssh2 transport); one driver kept; per command edit_config "
        "(candidate), then commit"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=1)
