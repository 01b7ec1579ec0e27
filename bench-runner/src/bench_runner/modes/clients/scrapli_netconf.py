"""scrapli-netconf over scrapli's SSH transports: ``AsyncNetconfDriver`` on asyncssh (the
client named ``scrapli-netconf``), ``NetconfDriver`` in a worker thread on system, paramiko
and ssh2 (``scrapli-netconf-<transport>``). It sends what the floor client sends and honours
the framing through ``preferred_netconf_version`` (and reads the command's interface with
``<get-config>`` as the floor client does); it waits for each reply before the next RPC (no
``netconf/batch-rpc``)."""

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from scrapli.exceptions import ScrapliException
from scrapli_netconf.driver import AsyncNetconfDriver, NetconfDriver

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.native_interfaces import (
    INTERFACES_FILTER,
    Interface,
    check_get_config,
    interface_for,
    interfaces_from_xml,
)
from bench_runner.modes.clients.scrapli_ssh import nodelay_socket
from bench_runner.modes.mode import Mode
from bench_runner.modes.row import NetconfValues
from bench_runner.phases import PhaseTimer
from bench_runner.protocols.netconf.messages import (
    DESCRIPTION_FILTER,
    Framing,
    description_config,
    edit_text,
    original_description,
    payload_filter,
)
from bench_runner.validation import IterationError

OPERATION_TIMEOUT_S = 60
EDIT_COMMIT = "edit-commit"
GET_CONFIG = "get-config"


class _SyncNetconf:
    """A synchronous ``NetconfDriver`` (system, paramiko, ssh2 transports) behind the
    awaitable calls the session makes, each run in a worker thread."""

    def __init__(self, driver: NetconfDriver, target: Target) -> None:
        self._driver = driver
        self._target = target

    def _open(self) -> None:
        if self._driver.transport_name in ("paramiko", "ssh2"):
            nodelay_socket(
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


def _driver(target: Target, transport: str, framing: Framing) -> Any:
    options: dict[str, Any] = {
        "host": target.host,
        "port": target.netconf_port,
        "auth_username": target.username,
        "auth_password": target.password,
        "auth_strict_key": False,
        "transport": transport,
        "ssh_config_file": False,
        "preferred_netconf_version": framing,
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
        transport: str,
        values: NetconfValues,
        operations: str,
        kept: Any,
        interfaces: Sequence[Interface] = (),
    ) -> None:
        self._target = target
        self._transport = transport
        self._values = values
        self._operations_kind = operations
        self._kept = kept
        self._interfaces = interfaces
        self._edits = 0
        self.phases = PhaseTimer()

    async def _get_configs(self, conn: Any, count: int) -> list[str]:
        outputs = []
        for command in range(1, count + 1):
            interface = interface_for(self._interfaces, command)
            reply = await conn.get_config(source="running", filter_=interface.subtree_filter())
            outputs.append(check_get_config(interface, _scrapli_result(reply, "<data")))
        return outputs

    async def _operations(self, conn: Any, count: int) -> list[str]:
        if self._operations_kind == GET_CONFIG:
            return await self._get_configs(conn, count)
        if self._operations_kind != EDIT_COMMIT:
            subtree = payload_filter(self._values.reply_bytes)
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
            conn = _driver(self._target, self._transport, self._values.framing)
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
async def session(
    mode: Mode, target: Target, *, transport: str, fresh: bool, operations: str
) -> AsyncIterator[Session]:
    """A driver per iteration (``fresh``) or one kept, over scrapli's ``transport``;
    ``operations``: ``gets`` (each after the previous reply), ``edit-commit`` (the
    description read first and restored at the end) or ``get-config`` (the interfaces
    discovered first; kept drivers only)."""
    values = mode.netconf()
    if fresh:
        yield _ScrapliSession(target, transport, values, operations, None)
        return
    conn = _driver(target, transport, values.framing)
    await conn.open()
    original: str | None = None
    interfaces: list[Interface] = []
    try:
        if operations == EDIT_COMMIT:
            reply = await conn.get_config(source="running", filter_=DESCRIPTION_FILTER)
            original = original_description(_scrapli_result(reply, "<data"))
        if operations == GET_CONFIG:
            reply = await conn.get_config(source="running", filter_=INTERFACES_FILTER)
            interfaces = list(interfaces_from_xml(_scrapli_result(reply, "<data")))
        yield _ScrapliSession(target, transport, values, operations, conn, interfaces)
    finally:
        try:
            if operations == EDIT_COMMIT:
                await conn.edit_config(config=description_config(original), target="candidate")
                await conn.commit()
        finally:
            await conn.close()
