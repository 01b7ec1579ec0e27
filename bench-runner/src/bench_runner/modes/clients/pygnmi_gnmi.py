"""pygnmi (Python, on grpcio's synchronous API), the gNMI library operators script with,
against the device's gNMI server: the reads and writes of clients/gnmi_paths.py.

``gNMIclient.connect`` is what a pygnmi user runs, and it costs more than a channel: without a
certificate file it first fetches the device's certificate over a TLS connection of its own
(``ssl.get_server_certificate``), then opens the channel trusting that certificate (with
``skip_verify``, the lab's default, under the name the certificate carries), waits until
grpcio reports it ready and asks for the device's Capabilities to choose an encoding. The
kept modes pay that once, before the warm-up; gnmi/fresh-conn pays it per command, as a
script that connects per request does. Every call runs in a worker thread (grpcio's calls
block); a subscription reads its updates on pygnmi's own thread.
"""

import asyncio
import json
import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from importlib.metadata import version as distribution_version
from typing import Any

import grpc  # type: ignore[import-untyped]
from pygnmi.client import gNMIclient  # type: ignore[import-untyped]

from bench_runner.modes.base import ReportedSpan, Session, StreamRate, Target
from bench_runner.modes.clients.device_api import REQUEST_TIMEOUT_S
from bench_runner.modes.clients.gnmi_paths import (
    INTERFACES,
    Interface,
    config_path,
    counters_path,
    description,
    description_path,
    interfaces_from_leaves,
    notification_leaves,
    pick,
    session_id,
)
from bench_runner.modes.mode import Mode
from bench_runner.validation import IterationError

CLIENT = "pygnmi"
CONNECT_TIMEOUT_S = 30
SAMPLE_WINDOW_S = 2.0
SAMPLE_INTERVAL_MS = 1.0

# pygnmi logs a warning on every connect with skip_verify (to standard output, its handler):
# the runner's console is no place for it.
logging.getLogger("pygnmi").setLevel(logging.ERROR)

_PYGNMI_READER = "(enqueue_updates)"
"""The name pygnmi's subscription reader thread gets (Python names a thread after its target)."""
_thread_excepthook = threading.excepthook


def _subscription_cancelled(args: "threading.ExceptHookArgs") -> None:
    """pygnmi's close() ends a POLL or STREAM subscription by closing its request stream,
    which a server may (and the device does) answer by streaming on, so the channel's close
    cancels the call and pygnmi's reader thread re-raises CANCELLED, for the thread hook to
    print as a traceback. That is how such a subscription ends, not a fault: only that is
    silenced; anything else reaches the usual hook."""
    thread_name = args.thread.name if args.thread is not None else ""
    if (
        thread_name.endswith(_PYGNMI_READER)
        and isinstance(args.exc_value, grpc.RpcError)
        and args.exc_value.code() is grpc.StatusCode.CANCELLED
    ):
        return
    _thread_excepthook(args)


threading.excepthook = _subscription_cancelled


def version() -> str:
    """``pygnmi 0.8.15 (grpcio 1.85.3)``: the installed distributions."""
    return f"pygnmi {distribution_version('pygnmi')} (grpcio {distribution_version('grpcio')})"


def connected(target: Target, options: Sequence[tuple[str, Any]] = ()) -> Any:
    """A gNMIclient connected to the target (see the module's docstring for what it costs);
    ``options``: grpcio channel arguments."""
    client = gNMIclient(
        target=(target.host, target.gnmi_port),
        username=target.username,
        password=target.password,
        skip_verify=not target.gnmi_tls_verify,
        gnmi_timeout=CONNECT_TIMEOUT_S,
        grpc_options=list(options) or None,
    )
    return client.connect()


async def in_thread[T](function: Callable[..., T], *args: Any) -> T:
    """A pygnmi call; any error it raises fails the iteration with its text."""
    try:
        return await asyncio.to_thread(function, *args)
    except IterationError:
        raise
    except Exception as exc:  # pygnmi wraps grpcio's errors in gNMIException, not always
        raise IterationError(f"{CLIENT}: {type(exc).__name__}: {exc}") from exc


def values_text(response: dict[str, Any]) -> list[str]:
    """The value of every update of a Get response, as JSON text."""
    return [json.dumps(value) for _, value in notification_leaves(response)]


def get_config(client: Any, names: Sequence[str]) -> list[str]:
    response = client.get(
        path=[config_path(name) for name in names], datatype="config", encoding="json_ietf"
    )
    got = values_text(response)
    if len(got) != len(names):
        raise IterationError(f"{CLIENT}: a Get of {len(names)} paths answered {len(got)}")
    return got


def discover(client: Any) -> list[Interface]:
    response = client.get(path=[INTERFACES], datatype="config", encoding="proto")
    return interfaces_from_leaves(notification_leaves(response))


def restore(client: Any, interfaces: Sequence[Interface]) -> None:
    """The descriptions as they were: an update where there was one, a delete where not."""
    client.set(
        delete=[description_path(i.name) for i in interfaces if i.description is None],
        update=[
            (description_path(i.name), json.dumps(i.description))
            for i in interfaces
            if i.description is not None
        ],
        encoding="json_ietf",
    )


def subscription(paths: Sequence[str], list_mode: str, **each: Any) -> dict[str, Any]:
    """pygnmi's subscription dictionary: the list's mode, each path's settings (``each``)."""
    return {
        "subscription": [{"path": path, **each} for path in paths],
        "mode": list_mode,
        "encoding": "json_ietf",
    }


class _PerCommand:
    """gnmi/fresh-conn: a connected gNMIclient per command, one Get, closed."""

    def __init__(self, target: Target, interfaces: list[Interface]) -> None:
        self._target = target
        self._interfaces = interfaces

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        outputs = []
        for index in range(len(commands)):
            client = connected(self._target)
            try:
                outputs += get_config(client, [pick(self._interfaces, index).name])
            finally:
                client.close()
        return outputs

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await in_thread(self.run_sync, commands)


class _Kept(ABC):
    """One connected gNMIclient kept across iterations, the interfaces discovered on it; an
    iteration is ``run_sync`` in a worker thread."""

    def __init__(self, client: Any, interfaces: list[Interface]) -> None:
        self._client = client
        self._interfaces = interfaces

    def names(self, commands: Sequence[str]) -> list[str]:
        return [pick(self._interfaces, index).name for index in range(len(commands))]

    @abstractmethod
    def run_sync(self, commands: Sequence[str]) -> list[str]: ...

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await in_thread(self.run_sync, commands)

    def close(self) -> None:
        self._client.close()


class _ReuseConn(_Kept):
    def run_sync(self, commands: Sequence[str]) -> list[str]:
        return [get_config(self._client, [name])[0] for name in self.names(commands)]


class _GetMulti(_Kept):
    def run_sync(self, commands: Sequence[str]) -> list[str]:
        return get_config(self._client, self.names(commands))


class _SetBatch(_Kept):
    """One Set of n descriptions per iteration (JSON_IETF string values); the descriptions
    are put back when the mode ends."""

    def __init__(self, client: Any, interfaces: list[Interface]) -> None:
        super().__init__(client, interfaces)
        self._session = session_id()
        self._iteration = 0

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        self._iteration += 1
        updates = [
            (description_path(name), json.dumps(description(self._session, self._iteration, i)))
            for i, name in enumerate(self.names(commands))
        ]
        response = self._client.set(update=updates, encoding="json_ietf")
        results = response.get("response") or []
        if len(results) != len(updates):
            raise IterationError(f"{CLIENT}: a Set of {len(updates)} answered {len(results)}")
        return [json.dumps(response)]

    def close(self) -> None:
        try:
            restore(self._client, self._interfaces)
        finally:
            super().close()


def until_sync(subscriber: Any) -> list[dict[str, Any]]:
    """A ONCE subscription's updates, read until its sync_response."""
    updates = []
    while True:
        message = subscriber.get_update(REQUEST_TIMEOUT_S)
        if "update" in message:
            updates.append(message["update"])
        if message.get("sync_response"):
            return updates


class _SubscribeOnce(_Kept):
    def run_sync(self, commands: Sequence[str]) -> list[str]:
        paths = [config_path(name) for name in self.names(commands)]
        subscriber = self._client.subscribe2(subscribe=subscription(paths, "once"))
        try:
            updates = until_sync(subscriber)
        finally:
            subscriber.close()
        if not updates:
            raise IterationError(f"{CLIENT}: sync_response before any update")
        return [json.dumps(updates)]


class _SubscribePoll(_Kept):
    """One POLL subscription, opened by the first iteration (the runner's first warm-up).
    pygnmi's PollSubscriber sends a Poll before every read: its first read returns the state
    the device sends as the subscription starts and leaves that Poll's answer queued, which
    is read here as the subscription opens, with the subscriber's own read-until-sync; from
    then on each read is one Poll and its answer."""

    def __init__(self, client: Any, interfaces: list[Interface]) -> None:
        super().__init__(client, interfaces)
        self._subscriber: Any = None
        self._paths = 0

    def _open(self, names: Sequence[str]) -> None:
        paths = [config_path(name) for name in names]
        self._subscriber = self._client.subscribe2(subscribe=subscription(paths, "poll"))
        self._paths = len(paths)
        self._subscriber.get_update(REQUEST_TIMEOUT_S)
        self._subscriber._get_updates_till_sync(REQUEST_TIMEOUT_S)

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        names = self.names(commands)
        if self._subscriber is None:
            self._open(names)
        if len(names) != self._paths:
            raise IterationError(f"{CLIENT}: the poll subscription holds {self._paths} paths")
        return [json.dumps(self._subscriber.get_update(REQUEST_TIMEOUT_S))]

    def close(self) -> None:
        if self._subscriber is not None:
            self._subscriber.close()
        super().close()


def update_for(message: dict[str, Any], name: str) -> tuple[str, int] | None:
    """(value, device timestamp) of the description update of interface ``name`` in a
    STREAM message; None for anything else."""
    update = message.get("update") or {}
    prefix = update.get("prefix") or ""
    for item in update.get("update") or []:
        path = "/".join(part for part in (prefix, item.get("path") or "") if part)
        if f"[name={name}]" in path and path.endswith("description"):
            return str(item.get("val")), int(update.get("timestamp") or 0)
    return None


class _Stream(_Kept):
    """gnmi/stream: STREAM ON_CHANGE of every description on the kept client, the changes
    made with Set over a second one; each iteration's span runs from the update's device
    timestamp to the moment pygnmi handed it over."""

    def __init__(self, client: Any, interfaces: list[Interface], setter: Any) -> None:
        super().__init__(client, interfaces)
        self._setter = setter
        self._session = session_id()
        self._iteration = 0
        self._span: ReportedSpan | None = None
        self.stream: StreamRate | None = None
        paths = [description_path(i.name) for i in interfaces]
        self._subscriber = client.subscribe2(
            subscribe=subscription(paths, "stream", mode="on_change")
        )
        self._subscriber.get_update(REQUEST_TIMEOUT_S)  # the state up to the sync_response

    def take_span(self) -> ReportedSpan | None:
        span, self._span = self._span, None
        return span

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        self._iteration += 1
        name = pick(self._interfaces, self._iteration - 1).name
        value = f"bench {self._session} stream {self._iteration}"
        self._setter.set(update=[(description_path(name), json.dumps(value))], encoding="json_ietf")
        deadline = time.monotonic() + REQUEST_TIMEOUT_S
        while time.monotonic() < deadline:
            message = self._subscriber.get_update(REQUEST_TIMEOUT_S)
            received_ns = time.time_ns()
            found = update_for(message, name)
            if found is None or found[0] != value:
                continue  # an earlier change's update, or another interface's
            device_ns = found[1]
            if device_ns <= 0 or received_ns < device_ns:
                raise IterationError(f"{CLIENT}: update stamped {device_ns}, received later")
            self._span = ReportedSpan(device_ns, received_ns, (received_ns - device_ns) / 1e6)
            return [value]
        raise IterationError(f"{CLIENT}: no update of {name} description")

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self._span = None
        return await super().run_iteration(commands)

    def close(self) -> None:
        try:
            self._subscriber.close()
            restore(self._setter, self._interfaces)
        finally:
            self._setter.close()
            super().close()


def sample_rate(target: Target, interface: Interface) -> StreamRate:
    """Updates one STREAM SAMPLE subscription at 1 ms delivered in a 2 s window after its
    sync_response, on a client of its own."""
    client = connected(target)
    path = counters_path(interface.name)
    interval_ns = int(SAMPLE_INTERVAL_MS * 1e6)
    subscriber = client.subscribe2(
        subscribe=subscription([path], "stream", mode="sample", sample_interval=interval_ns)
    )
    try:
        subscriber.get_update(REQUEST_TIMEOUT_S)
        updates = 0
        deadline = time.monotonic() + SAMPLE_WINDOW_S
        while (left := deadline - time.monotonic()) > 0:
            try:
                subscriber.get_update(left)
            except TimeoutError:
                break
            if time.monotonic() < deadline:
                updates += 1
    finally:
        subscriber.close()
        client.close()
    return StreamRate(updates / SAMPLE_WINDOW_S, updates, SAMPLE_WINDOW_S, SAMPLE_INTERVAL_MS, path)


async def _opened(target: Target) -> tuple[Any, list[Interface]]:
    def open_sync() -> tuple[Any, list[Interface]]:
        client = connected(target)
        try:
            return client, discover(client)
        except BaseException:
            client.close()
            raise

    return await in_thread(open_sync)


@asynccontextmanager
async def fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """A connected client per command; the interfaces discovered on one of their own."""
    client, interfaces = await _opened(target)
    await in_thread(client.close)
    yield _PerCommand(target, interfaces)


_KEPT: dict[str, type[_Kept]] = {
    "reuse": _ReuseConn,
    "multi": _GetMulti,
    "set": _SetBatch,
    "once": _SubscribeOnce,
    "poll": _SubscribePoll,
}


@asynccontextmanager
async def kept(mode: Mode, target: Target, *, shape: str) -> AsyncIterator[Session]:
    """One connected client kept across iterations; ``shape`` names what an iteration does
    on it (reuse, multi, set, once, poll)."""
    client, interfaces = await _opened(target)
    session = _KEPT[shape](client, interfaces)
    try:
        yield session
    finally:
        await in_thread(session.close)


@asynccontextmanager
async def stream(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """gnmi/stream's two clients; once its iterations are done, one sample window."""
    client, interfaces = await _opened(target)
    try:
        setter = await in_thread(connected, target)
        session = await in_thread(_Stream, client, interfaces, setter)
    except BaseException:
        await in_thread(client.close)
        raise
    try:
        yield session
    finally:
        await in_thread(session.close)
    session.stream = await in_thread(sample_rate, target, interfaces[0])
