"""A held-connections sweep on the console: a row per step, its figures with their 95 %
intervals; a step that did not hold shows how many failed and no figure."""

from rich.table import Table

from bench_runner.held.results import HoldResult
from bench_runner.held.step import HeldStep, MemoryPerConnection
from bench_runner.stats import Stats

COLUMNS = (
    "N",
    "open",
    "setup p50 ms",
    "setup p95",
    "op p50 ms",
    "op p95",
    "ops",
    "ops/s",
    "client KiB/c",
    "device KiB/c",
)
"""Each p50 with its 95 % interval in brackets, each p95 with its own where there are
enough samples (72); memory in KiB per connection."""


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _with_interval(value: float | None, low: float | None, high: float | None) -> str:
    interval = "" if low is None or high is None else f" [{low:.1f}-{high:.1f}]"
    return _ms(value) + interval


def _kib(memory: MemoryPerConnection) -> str:
    value = memory.per_connection_bytes
    return "-" if value is None else f"{value / 1024:.0f}"


def _operations(stats: Stats | None) -> tuple[str, str, str]:
    if stats is None:
        return "-", "-", "-"
    return (
        _with_interval(stats.p50_ms, stats.p50_ci_low_ms, stats.p50_ci_high_ms),
        _with_interval(stats.p95_ms, stats.p95_ci_low_ms, stats.p95_ci_high_ms),
        f"{stats.n} ({stats.errors} err)" if stats.errors else str(stats.n),
    )


def _row(step: HeldStep) -> list[str]:
    opened = f"{step.opened}" + (f" ({step.setup.errors} failed)" if step.setup.errors else "")
    if not step.ok:
        return [str(step.connections), opened, *["-"] * (len(COLUMNS) - 2), step.error or ""]
    setup = step.setup
    return [
        str(step.connections),
        opened,
        _with_interval(setup.p50_ms, setup.p50_ci_low_ms, setup.p50_ci_high_ms),
        _with_interval(setup.p95_ms, setup.p95_ci_low_ms, setup.p95_ci_high_ms),
        *_operations(step.operations),
        "-" if step.operations_per_s is None else f"{step.operations_per_s:.1f}",
        _kib(step.client_memory),
        _kib(step.device_memory),
        "",
    ]


def hold_table(result: HoldResult) -> Table:
    rtt = result.rtt.verified_rtt_ms
    title = (
        f"{result.run_id} · {result.transport} held · {result.client} {result.client_version} · "
        f"{result.profile.name} ({result.profile.engine}, verified RTT "
        f"{'-' if rtt is None else f'{rtt:.1f}'} ms)"
    )
    table = Table(
        title=title,
        caption=f"one operation: {result.operation}; [95 % interval]; KiB per connection",
    )
    for column in (*COLUMNS, "error"):
        table.add_column(column)
    for step in result.steps:
        table.add_row(*_row(step))
    return table
