"""One step of a sweep on the wire: N connections opened concurrently (at most
``open_concurrency`` in their setup at once, each timed from when it starts), held, then
every connection runs its own operations one after the other while the others run theirs;
the memory gauges read before opening and again while all are held; then all are closed.

A connection that fails to open, or an operation that fails, is counted with its error and
never timed. A step whose connections did not all open runs no operations: the sweep stops
there (run.py)."""

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from bench_runner.held.gauges import client_rss_bytes, device_memory_bytes, established_sockets
from bench_runner.held.measurement import StepMeasurement
from bench_runner.held.plan import HoldPlan
from bench_runner.held.transports import HeldConnection, HeldTransport
from bench_runner.runner import describe_failure

OPEN_TIMEOUT_S = 60.0
OPERATION_TIMEOUT_S = 60.0


@dataclass
class _Loop:
    durations_s: list[float] = field(default_factory=list)
    error: str | None = None


async def _open(transport: HeldTransport, gate: asyncio.Semaphore) -> HeldConnection | str:
    async with gate:
        try:
            return await asyncio.wait_for(transport.open(), OPEN_TIMEOUT_S)
        except Exception as exc:  # any failure of any client is counted, never timed
            return describe_failure(exc, OPEN_TIMEOUT_S)


async def _operate(connection: HeldConnection, plan: HoldPlan, deadline: float | None) -> _Loop:
    """This connection's operations, each after the previous; stops at its first error (a
    connection that failed once would fail its next operations too, counting one fault many
    times)."""
    loop = _Loop()
    while True:
        if plan.operations_per_connection is not None:
            if len(loop.durations_s) >= plan.operations_per_connection:
                return loop
        elif deadline is not None and time.perf_counter() >= deadline:
            return loop
        started = time.perf_counter()
        try:
            await asyncio.wait_for(connection.operate(), OPERATION_TIMEOUT_S)
        except Exception as exc:  # counted, never timed
            loop.error = describe_failure(exc, OPERATION_TIMEOUT_S)
            return loop
        loop.durations_s.append(time.perf_counter() - started)


async def _close(connections: Sequence[HeldConnection]) -> None:
    # A close that fails changes nothing measured: the connection is gone either way.
    await asyncio.gather(
        *(connection.close() for connection in connections), return_exceptions=True
    )


async def warm_up(transport: HeldTransport) -> str | None:
    """One connection opened, one operation on it, closed, before the first step, nothing
    of it measured: the client's one-time costs (lazy imports, TLS contexts, the first key
    exchange's tables) would otherwise count as the first step's memory and setup. Its
    error, when it fails: a sweep whose single connection fails holds nothing."""
    await transport.prepare(1)
    try:
        connection = await asyncio.wait_for(transport.open(), OPEN_TIMEOUT_S)
    except Exception as exc:  # reported as the sweep's error, never timed
        return describe_failure(exc, OPEN_TIMEOUT_S)
    try:
        await asyncio.wait_for(connection.operate(), OPERATION_TIMEOUT_S)
    except Exception as exc:  # reported as the sweep's error, never timed
        return describe_failure(exc, OPERATION_TIMEOUT_S)
    finally:
        await _close([connection])
    return None


async def hold_step(
    transport: HeldTransport, connections: int, plan: HoldPlan, metrics_url: str | None
) -> StepMeasurement:
    measured = StepMeasurement(connections)
    await transport.prepare(connections)
    measured.client_before = client_rss_bytes()
    measured.device_before, measured.device_error = await device_memory_bytes(metrics_url)
    gate = asyncio.Semaphore(plan.open_concurrency)
    started = time.perf_counter()
    outcomes = await asyncio.gather(*(_open(transport, gate) for _ in range(connections)))
    measured.setup_wall_s = time.perf_counter() - started
    held = [outcome for outcome in outcomes if not isinstance(outcome, str)]
    measured.open_errors = [outcome for outcome in outcomes if isinstance(outcome, str)]
    measured.setup_s = [connection.setup_s for connection in held]
    try:
        if measured.open_errors:
            return measured
        measured.sockets = established_sockets(transport.port)
        started = time.perf_counter()
        deadline = started + plan.duration_s if plan.duration_s is not None else None
        loops = await asyncio.gather(*(_operate(c, plan, deadline) for c in held))
        measured.operations_window_s = time.perf_counter() - started
        measured.operation_s = [duration for loop in loops for duration in loop.durations_s]
        measured.operation_errors = [loop.error for loop in loops if loop.error is not None]
        measured.client_held = client_rss_bytes()
        device_held, device_error = await device_memory_bytes(metrics_url)
        measured.device_held = device_held
        measured.device_error = measured.device_error or device_error
    finally:
        await _close(held)
    return measured
