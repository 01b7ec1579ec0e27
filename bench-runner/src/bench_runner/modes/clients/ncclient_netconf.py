"""ncclient (paramiko underneath, synchronous, run in a worker thread): what the floor
client sends (the payload ``<get>``, the Loopback0 description ``<edit-config>`` and
``<commit>``, the ``<get-config>`` of an interface), with the framing parameter honoured
through a device handler that offers only ``:base:1.0``. ncclient pipelines in its
``async_mode`` (RPCs sent without waiting, replies matched by message-id), so it has
``netconf/batch-rpc``."""

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from functools import partial
from typing import Any

from ncclient import manager  # type: ignore[import-untyped]
from ncclient.devices.default import DefaultDeviceHandler  # type: ignore[import-untyped]
from ncclient.operations import RPCError  # type: ignore[import-untyped]
from ncclient.transport import TransportError  # type: ignore[import-untyped]

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.native_interfaces import (
    INTERFACES_FILTER,
    Interface,
    check_get_config,
    interface_for,
    interfaces_from_xml,
)
from bench_runner.modes.mode import Mode
from bench_runner.modes.row import NetconfValues
from bench_runner.phases import PhaseTimer
from bench_runner.protocols.netconf.messages import (
    BASE_11,
    DESCRIPTION_FILTER,
    Framing,
    description_config,
    edit_text,
    original_description,
    payload_filter,
)
from bench_runner.validation import IterationError

OPERATION_TIMEOUT_S = 60
PIPELINED_GETS = "pipelined-gets"
EDIT_COMMIT = "edit-commit"
GET_CONFIG = "get-config"


class _Base10Handler(DefaultDeviceHandler):  # type: ignore[misc]
    """ncclient's default device handler without ``:base:1.1``: end-of-message framing."""

    def get_capabilities(self) -> list[str]:
        return [cap for cap in super().get_capabilities() if cap != BASE_11]


def _connect(target: Target, framing: Framing) -> Any:
    device_params: dict[str, Any] = (
        {"handler": _Base10Handler} if framing == "1.0" else {"name": "default"}
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

    def __init__(
        self, target: Target, values: NetconfValues, *, fresh: bool, operations: str
    ) -> None:
        self._target = target
        self._values = values
        self._fresh = fresh
        self._operations_kind = operations
        self._manager: Any = None if fresh else _connect(target, values.framing)
        self._edits = 0
        self.phases = PhaseTimer()
        self._original: str | None = None
        self._interfaces: list[Interface] = []

    def _gets(self, nc: Any, count: int) -> list[str]:
        subtree = ("subtree", payload_filter(self._values.reply_bytes))
        if self._operations_kind != PIPELINED_GETS:
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

    def _get_configs(self, nc: Any, count: int) -> list[str]:
        outputs = []
        for command in range(1, count + 1):
            interface = interface_for(self._interfaces, command)
            reply = nc.get_config(source="running", filter=("subtree", interface.subtree_filter()))
            outputs.append(check_get_config(interface, _reply_xml(reply, "<data")))
        return outputs

    def _operations(self, nc: Any, count: int) -> list[str]:
        if self._operations_kind == EDIT_COMMIT:
            return self._edit_commit(nc, count)
        if self._operations_kind == GET_CONFIG:
            return self._get_configs(nc, count)
        return self._gets(nc, count)

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        phases = self.phases
        with _ncclient_errors():
            if not self._fresh:
                with phases.measure("rpcs"):
                    return self._operations(self._manager, len(commands))
            with phases.measure("connect"):  # manager.connect: SSH, subsystem, hellos
                nc = _connect(self._target, self._values.framing)
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

    def discover_interfaces(self) -> None:
        reply = self._manager.get_config(source="running", filter=("subtree", INTERFACES_FILTER))
        self._interfaces = list(interfaces_from_xml(str(reply.xml)))

    def close(self) -> None:
        if self._manager is None:
            return
        try:
            if self._operations_kind == EDIT_COMMIT:
                self._manager.edit_config(
                    config=description_config(self._original),
                    target="candidate",
                    default_operation="merge",
                )
                self._manager.commit()
        finally:
            self._manager.close_session()


@asynccontextmanager
async def session(
    mode: Mode, target: Target, *, fresh: bool, operations: str
) -> AsyncIterator[Session]:
    """A manager per iteration (``fresh``) or one kept; ``operations``: ``gets`` (each
    after the previous reply), ``pipelined-gets`` (``async_mode``: sent without waiting),
    ``edit-commit`` (the description read first and restored at the end) or ``get-config``
    (the interfaces read first, then per command its interface's running configuration)."""
    values = mode.netconf()
    opened = await asyncio.to_thread(
        partial(_NcclientSession, target, values, fresh=fresh, operations=operations)
    )
    try:
        if operations == EDIT_COMMIT:
            await asyncio.to_thread(opened.remember_description)
        if operations == GET_CONFIG:
            await asyncio.to_thread(opened.discover_interfaces)
        yield opened
    finally:
        await asyncio.to_thread(opened.close)
