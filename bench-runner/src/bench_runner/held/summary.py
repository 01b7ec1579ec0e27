"""A step's figures from what it measured (pure): setup and operation times with their
intervals (stats.py), operations per second over the held period, and the memory each held
connection costs, from a gauge read before opening and again while every connection is
held. Samples from connections that run at the same time share the device and the link, so
they are not independent: the order-statistics intervals describe this run's spread, not a
population's."""

import statistics
from collections.abc import Sequence

from bench_runner.held.measurement import StepMeasurement
from bench_runner.held.step import HeldStep, MemoryPerConnection
from bench_runner.stats import summarize


def memory_per_connection(
    before: int | None, held: int | None, connections: int, missing: str | None = None
) -> MemoryPerConnection:
    """The growth shared out over ``connections``. A gauge that fell while connections were
    added moved for something else (the page cache, an allocator returning memory): their
    cost is below what it resolves, so no figure rather than a negative one."""
    if before is None or held is None:
        return MemoryPerConnection(
            before_bytes=before,
            held_bytes=held,
            per_connection_bytes=None,
            note=missing or "not sampled",
        )
    growth = held - before
    if growth < 0:
        return MemoryPerConnection(
            before_bytes=before,
            held_bytes=held,
            per_connection_bytes=None,
            note=f"fell by {-growth} bytes while the connections were held: their cost is "
            "below what this gauge resolves",
        )
    return MemoryPerConnection(
        before_bytes=before, held_bytes=held, per_connection_bytes=growth / connections, note=None
    )


def median_reading(readings: Sequence[int]) -> int | None:
    """The median of a gauge's readings (one stray reading moves it less than a mean)."""
    return int(statistics.median(readings)) if readings else None


def operations_per_second(operations: int, window_s: float | None) -> float | None:
    """Successful operations over the window they ran in, across every connection."""
    if window_s is None or window_s <= 0 or operations == 0:
        return None
    return operations / window_s


def _ms(seconds: Sequence[float]) -> list[float]:
    return [value * 1000.0 for value in seconds]


def step_error(measured: StepMeasurement, profile_unchanged: bool) -> str | None:
    """Why the step is not published, or None."""
    reasons = []
    if measured.open_errors:
        reasons.append(
            f"{len(measured.open_errors)} of {measured.connections} connections failed to open"
        )
    if measured.operation_errors:
        reasons.append(f"{len(measured.operation_errors)} connections failed an operation")
    if not profile_unchanged:
        reasons.append("netem's profile changed during the step")
    return "; ".join(reasons) or None


def summarize_step(measured: StepMeasurement, profile_unchanged: bool) -> HeldStep:
    """The step's figures; a step that ran no operations has none of theirs, and a failed
    connection or operation is an error count, never a sample."""
    ran = measured.operations_window_s is not None
    error = step_error(measured, profile_unchanged)
    not_held = "no operations ran: the step's connections did not all open"
    return HeldStep(
        connections=measured.connections,
        opened=len(measured.setup_s),
        setup=summarize(_ms(measured.setup_s), errors=len(measured.open_errors)),
        setup_wall_s=measured.setup_wall_s,
        sockets=measured.sockets,
        operations=summarize(_ms(measured.operation_s), errors=len(measured.operation_errors))
        if ran
        else None,
        operations_window_s=measured.operations_window_s,
        operations_per_s=operations_per_second(
            len(measured.operation_s), measured.operations_window_s
        ),
        client_memory=memory_per_connection(
            measured.client_before,
            measured.client_held,
            measured.connections,
            None if ran else not_held,
        ),
        device_memory=memory_per_connection(
            measured.device_before,
            measured.device_held,
            measured.connections,
            measured.device_error or (None if ran else not_held),
        ),
        profile_unchanged=profile_unchanged,
        ok=error is None,
        error=error,
    )
