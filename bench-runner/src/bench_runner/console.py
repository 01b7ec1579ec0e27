"""Terminal presentation: a progress bar per mode and summary tables (rich)."""

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bench_runner.fleet_job.results import FleetJobResult
from bench_runner.fleet_job.sweep_results import FleetSweepResult
from bench_runner.influx_schema import Tag
from bench_runner.modes import Mode
from bench_runner.netem import NetemProfile
from bench_runner.report import RunFigures
from bench_runner.results import ModeResult, RunResult
from bench_runner.sinks.delivery import Delivery
from bench_runner.wire.handshake_model import Handshakes
from bench_runner.wire.model import WireCounts
from bench_runner.wire.timeline import PARTS

# Redirected output (CI logs, `docker compose run -T`) would be cut at 80 columns, which
# truncates the summary table; a terminal or $COLUMNS still decides otherwise.
LOG_WIDTH = 200
_width = None if sys.stdout.isatty() or "COLUMNS" in os.environ else LOG_WIDTH
console = Console(width=_width)
err_console = Console(stderr=True, width=_width)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _recovered(wire: WireCounts | None, iterations: int) -> str:
    """In how many of the iterations a segment was sent again ("-": not told)."""
    if wire is None or wire.recovered_iterations is None:
        return "-"
    return f"{wire.recovered_iterations}/{iterations}"


def _interval(low: float | None, high: float | None) -> str:
    """An interval's ends; "-" when too few samples give none."""
    return "-" if low is None or high is None else f"{low:.1f}-{high:.1f}"


def _precision(mode: ModeResult) -> str:
    """The median's half-width and why the iterations stopped, in yellow when short of
    its target."""
    precision = mode.precision
    half_width = mode.stats.p50_ci_half_width_pct
    if precision is None:
        return "-"
    text = f"{'-' if half_width is None else f'{half_width:.1f}'} ({precision.stop_reason})"
    return text if precision.precise else f"[yellow]{text}"


def _key(mode: Mode) -> str:
    return mode.label()


class ModeProgress:
    """One bar per mode, counting warm-up and measured iterations (``iterations(mode)``; a
    bar without a total when the mode's precision decides), with an error count."""

    def __init__(self, modes: Sequence[Mode], iterations: Callable[[Mode], int | None]) -> None:
        self.progress = Progress(
            TextColumn("{task.description:<28}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[errors]} errors"),
            TimeElapsedColumn(),
            console=console,
        )
        self._tasks = {
            _key(mode): self.progress.add_task(_key(mode), total=iterations(mode), errors=0)
            for mode in modes
        }
        self._errors = dict.fromkeys(self._tasks, 0)

    def callback(self, mode: Mode) -> Callable[[bool], None]:
        key = _key(mode)
        task = self._tasks[key]

        def on_iteration(ok: bool) -> None:
            if not ok:
                self._errors[key] += 1
            self.progress.update(task, advance=1, errors=self._errors[key])

        return on_iteration


def summary_table(run: RunResult) -> Table:
    baseline = f"  speedup vs {run.baseline.mode}@{run.baseline.client}" if run.baseline else ""
    table = Table(
        title=f"run {run.run_id}  profile {run.profile.name} ({run.profile.engine}){baseline}"
    )
    for header in (
        "mode",
        "client",
        "ok",
        "n",
        "err",
        "excl",
        "p50 ms",
        "p50 95% CI",
        "±% (stop)",
        "p95 ms",
        "p99 ms",
        "sd ms",
        "RTT ms",
        "p50/RTT",
        "min RT",
        "exp RT",
        "wire RT",
        "speedup",
        "cpu s",
        "dev cpu s",
    ):
        table.add_column(header, justify="left" if header in ("mode", "client") else "right")
    for mode in run.modes:
        stats = mode.stats
        rtt = mode.verified_rtt_ms
        ratio = "-" if stats.p50_ms is None or not rtt else f"{stats.p50_ms / rtt:.1f}"
        speedup = "-" if mode.speedup_vs_baseline is None else f"{mode.speedup_vs_baseline:.2f}x"
        if mode.speedup_vs_baseline_ci is not None:
            low, high = mode.speedup_vs_baseline_ci
            speedup += f" ({low:.2f}-{high:.2f})"
        resources = mode.resources
        table.add_row(
            " ".join([mode.mode, *(f"{k}={v}" for k, v in mode.parameter_tags().items())]),
            mode.client,
            _status(mode),
            str(stats.n),
            str(stats.errors),
            str(stats.excluded),
            _ms(stats.p50_ms),
            _interval(stats.p50_ci_low_ms, stats.p50_ci_high_ms),
            _precision(mode),
            _ms(stats.p95_ms),
            _ms(stats.p99_ms),
            _ms(stats.stddev_ms),
            _ms(rtt),
            ratio,
            str(mode.min_round_trips),
            str(mode.expected_round_trips),
            _wire_round_trips(mode),
            speedup,
            _seconds(resources.runner_cpu_s if resources else None),
            _seconds(resources.device_cpu_s if resources else None),
        )
    return table


def time_split_table(run: RunResult) -> Table:
    """Where each mode's iteration goes, from its packets: the p50 of each part."""
    table = Table(title="where an iteration goes (p50 ms, from the packets)")
    for header in (
        "mode",
        "client",
        "p50 ms",
        "network",
        "device",
        "client ms",
        "TCP stalls",
        "recovery",
        "stalls/it",
        "resent in",
    ):
        table.add_column(header, justify="left" if header in ("mode", "client") else "right")
    for mode in run.modes:
        split = mode.time_split
        if split is None:
            continue
        iterations = len(split.per_iteration)
        table.add_row(
            " ".join([mode.mode, *(f"{k}={v}" for k, v in mode.parameter_tags().items())]),
            mode.client,
            _ms(mode.stats.p50_ms),
            *(_ms(split.p50_ms.get(part)) for part in PARTS),
            f"{split.stalls / iterations:.1f}",
            _recovered(mode.wire, iterations),
        )
    return table


HOP_COLUMNS = (
    ("WAN network", "wan_network"),
    ("LAN network", "lan_network"),
    ("relay", "relay"),
    ("device", "device"),
    ("relay+device", "relay_and_device"),
    ("client ms", "client"),
    ("TCP stalls", "stall"),
    ("recovery", "recovery"),
)
"""The hop split's parts as the table shows them ("-": not told apart, or not counted)."""


def hop_split_table(run: RunResult) -> Table:
    """Where each relayed mode's iteration goes, hop by hop: the p50 of each part, and the
    most any iteration's parts were clipped by (two measurements disagreeing)."""
    table = Table(title="where a relayed iteration goes, per hop (p50 ms)")
    headers = ("mode", "client", "p50 ms", "LAN RT", *(name for name, _ in HOP_COLUMNS), "clipped")
    for header in headers:
        table.add_column(header, justify="left" if header in ("mode", "client") else "right")
    for mode in run.modes:
        hops = mode.hop_split
        if hops is None:
            continue
        lan = mode.lan_round_trips.p50 if mode.lan_round_trips is not None else None
        table.add_row(
            mode.mode,
            mode.client,
            _ms(mode.stats.p50_ms),
            "-" if lan is None else f"{lan:g}",
            *(_ms(hops.p50_ms.get(part)) for _, part in HOP_COLUMNS),
            _ms(hops.max_clipped_ms),
        )
    return table


def handshakes_table(run: RunResult) -> Table:
    """What each mode's connections negotiated, read from their handshakes: a parameter
    its connections differed on shows every value with its connections, and is named."""
    table = Table(title="what the connections negotiated (from their handshakes)")
    for header in ("mode", "client", "conns", "key exchange", "cipher", "differed"):
        table.add_column(header, justify="right" if header == "conns" else "left")
    for mode in run.modes:
        handshakes = mode.handshakes
        if handshakes is None or not handshakes.available:
            continue
        if Tag.SSH_KEX in handshakes.parameters:
            exchange = _negotiated(handshakes, Tag.SSH_KEX)
            cipher = _negotiated(handshakes, Tag.SSH_CIPHER_CS)
        else:
            exchange = " ".join(
                (_negotiated(handshakes, Tag.TLS_VERSION), _negotiated(handshakes, Tag.TLS_GROUP))
            )
            cipher = _negotiated(handshakes, Tag.TLS_CIPHER)
        table.add_row(
            " ".join([mode.mode, *(f"{k}={v}" for k, v in mode.parameter_tags().items())]),
            mode.client,
            str(handshakes.connections),
            exchange,
            cipher,
            "; ".join(
                f"[yellow]{name}[/yellow] {_negotiated(handshakes, name)}"
                for name in handshakes.varied
            )
            or "-",
        )
    return table


def _negotiated(handshakes: Handshakes, parameter: str) -> str:
    """The parameter's value, or each of its values with the connections that
    negotiated it; ``-`` when no connection was read whole."""
    found = handshakes.parameters.get(parameter)
    if found is None or not found.values:
        return "-"
    if len(found.values) == 1:
        return next(iter(found.values))
    return " | ".join(f"{value} ({count})" for value, count in sorted(found.values.items()))


def _wire_round_trips(mode: ModeResult) -> str:
    """p50 of the round trips counted on the wire; ``n/a`` when nothing could be counted
    (the reason is in results.json), never 0."""
    if mode.wire is None:
        return "-"
    value = mode.wire.p50.get("round_trips") if mode.wire.p50 else None
    if not mode.wire.available:
        return "n/a"
    return "-" if value is None else f"{value:g}"


def _status(mode: ModeResult) -> str:
    if mode.ok:
        return "[green]yes"
    return "[red]no" if mode.published else "[red]RTT gate"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def print_not_applicable(run: RunResult) -> None:
    for entry in run.not_applicable:
        console.print(f"not applicable: {entry.mode} with {entry.reason}", highlight=False)


def print_failures(run: RunResult) -> None:
    for mode in run.modes:
        for message in mode.error_messages:
            err_console.print(f"[red]{mode.mode}[/red]: {message}", markup=True, highlight=False)


def modes_table(modes: Sequence[Mode], n_commands: int) -> Table:
    table = Table(title=f"modes (per iteration of {n_commands} commands)")
    for header in ("mode", "client", "min RT", "exp RT", "conns", "cmds/req", "description"):
        table.add_column(header)
    for mode in modes:
        per_request = mode.commands_per_request(n_commands)
        table.add_row(
            mode.name,
            mode.client,
            str(mode.min_round_trips(n_commands)),
            str(mode.expected_round_trips(n_commands)),
            str(mode.connections_per_iteration(n_commands)),
            "-" if per_request is None else str(per_request),
            mode.description,
        )
    return table


def profiles_table(profiles: Sequence[NetemProfile]) -> Table:
    table = Table(title="netem profiles")
    for header in ("name", "rtt ms", "jitter ms", "loss %", "rate Mbit/s", "source"):
        table.add_column(header)
    for profile in profiles:
        rate = f"{profile.rate_mbit:g}" if profile.rate_mbit else "-"
        table.add_row(
            profile.name,
            f"{profile.rtt_ms:g}",
            f"{profile.jitter_ms:g}",
            f"{profile.loss_pct:g}",
            rate,
            profile.source or "",
        )
    return table


def report_table(runs: Sequence[RunFigures]) -> Table:
    table = Table(title="p50 against the round-trip bound; harness overhead per iteration")
    for header in (
        "run",
        "profile",
        "mode",
        "client",
        "p50 ms",
        "p50 95% CI",
        "bound ms",
        "p50/bound",
        "overhead %",
    ):
        table.add_column(
            header, justify="left" if header in ("run", "profile", "mode", "client") else "right"
        )
    for run in runs:
        for mode in run.modes:
            ratio = mode.p50_over_bound
            table.add_row(
                run.run_id,
                run.profile,
                mode.mode,
                mode.client,
                _ms(mode.p50_ms),
                _interval(mode.p50_ci_low_ms, mode.p50_ci_high_ms),
                _ms(mode.bound_ms),
                "-" if ratio is None else f"{ratio:.2f}",
                "-" if mode.overhead_pct is None else f"{mode.overhead_pct:.2f}",
            )
    return table


def runs_table(runs: Sequence[RunFigures]) -> Table:
    table = Table(title="run wall time against its RTT-bound minimum and its counted round trips")
    for header in (
        "run",
        "profile",
        "wall s",
        "RTT-bound s",
        "wall/bound",
        "counted-RT s",
        "wall/counted",
    ):
        table.add_column(header, justify="left" if header in ("run", "profile") else "right")
    for run in runs:
        ratio, counted_ratio = run.wall_over_bound, run.wall_over_counted
        table.add_row(
            run.run_id,
            run.profile,
            f"{run.wall_s:.1f}",
            f"{run.rtt_bound_s:.1f}",
            "-" if ratio is None else f"{ratio:.2f}",
            "-" if run.counted_bound_s is None else f"{run.counted_bound_s:.1f}",
            "-" if counted_ratio is None else f"{counted_ratio:.2f}",
        )
    return table


def fleet_job_table(result: FleetJobResult) -> Table:
    """A fleet job step: its wall time beside the model, each device's own time."""
    stats, model = result.per_device, result.model
    title = (
        f"{result.label} · {result.devices} devices · {result.workers} workers · "
        f"{result.profile.name}"
    )
    table = Table(title=title)
    for column in ("figure", "value"):
        table.add_column(column)
    table.add_row("job wall time (s)", _seconds(result.wall_s))
    if model is not None and model.predicted_wall_s is not None:
        predicted = _seconds(model.predicted_wall_s)
        if model.predicted_low_s is not None and model.predicted_high_s is not None:
            predicted += f" [{model.predicted_low_s:.2f}-{model.predicted_high_s:.2f}]"
        table.add_row(
            f"model (s): {model.rounds} rounds x per-device p50",
            f"{predicted} ({model.verdict}, {model.error_pct:+.1f} %)",
        )
    if stats is not None:
        table.add_row(
            "per device p50 (ms) [95 % CI]",
            f"{_ms(stats.p50_ms)} {_interval(stats.p50_ci_low_ms, stats.p50_ci_high_ms)}",
        )
        table.add_row(
            "per device p95 (ms) [95 % CI]",
            f"{_ms(stats.p95_ms)} {_interval(stats.p95_ci_low_ms, stats.p95_ci_high_ms)}",
        )
    if result.client is not None:
        table.add_row("client CPU (s)", _seconds(result.client.cpu_s))
        table.add_row("client memory peak", f"{result.client.max_rss_bytes / 2**20:.0f} MiB")
    device_cpu = result.device_resources.device_cpu_s if result.device_resources else None
    table.add_row("device CPU (s)", _seconds(device_cpu))
    failed = [host.name for host in result.hosts if not host.ok]
    table.add_row("devices failed", ", ".join(failed) or "none")
    return table


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def fleet_sweep_table(sweep: FleetSweepResult) -> Table:
    """A fleet sweep: each step's wall time beside the model, the client's CPU, and below it
    the knee of each profile and devices count."""
    table = Table(
        title=f"fleet sweep {sweep.sweep} · {sweep.label} · client {sweep.client_cores:g} "
        f"cores ({sweep.usable_cores:g} usable by {sweep.tool})",
        caption="\n".join(
            f"knee at {knee.profile}, {knee.devices} devices: {knee.status} ({knee.reason})"
            for knee in sweep.knees
        ),
    )
    for column in (
        "profile",
        "devices",
        "workers",
        "wall s",
        "model s [interval]",
        "vs model",
        "per device p50 ms [95 % CI]",
        "client CPU s",
        "client CPU",
        "verified RTT ms",
        "ok",
    ):
        table.add_column(column)
    for step in sweep.steps:
        model = _seconds(step.predicted_wall_s)
        if step.predicted_low_s is not None and step.predicted_high_s is not None:
            model += f" [{step.predicted_low_s:.2f}-{step.predicted_high_s:.2f}]"
        table.add_row(
            step.profile,
            str(step.devices),
            str(step.workers),
            _seconds(step.wall_s),
            model,
            step.model_verdict or "-",
            f"{_ms(step.per_device_p50_ms)} "
            f"{_interval(step.per_device_p50_ci_low_ms, step.per_device_p50_ci_high_ms)}",
            _seconds(step.client_cpu_s),
            _share(step.client_utilisation),
            _ms(step.verified_rtt_ms),
            "yes" if step.ok else f"[red]no: {step.error}",
        )
    return table


def print_deliveries(deliveries: Sequence[Delivery], shown_path: Callable[[Path], Path]) -> None:
    """What each sink got; ``shown_path`` names a spooled file where the user finds it."""
    for delivery in deliveries:
        if delivery.delivered:
            console.print(f"[green]{delivery.sink}[/green]: {delivery.detail}")
        elif delivery.set_aside:
            err_console.print(
                f"[yellow]WARNING spool[/yellow]: {delivery.detail}; set aside as "
                f"{shown_path(delivery.spooled_to) if delivery.spooled_to else None} "
                "(kept for inspection, never replayed)"
            )
        else:
            kept = shown_path(delivery.spooled_to) if delivery.spooled_to else None
            err_console.print(
                f"[yellow]WARNING {delivery.sink} unavailable[/yellow]: {delivery.detail}; "
                f"payload kept in {kept} (replayed by the next run or `bench-runner replay`)"
            )


class ConsolePresenter:
    """A run as the command line shows it (lab_run's ``Presenter``): notes on stdout,
    warnings and errors on stderr, a bar per mode, each job's tables when it is done."""

    def __init__(self, shown_path: Callable[[Path], Path]) -> None:
        self._shown_path = shown_path

    def note(self, message: str) -> None:
        console.print(message, highlight=False)

    def warn(self, message: str) -> None:
        err_console.print(f"[yellow]WARNING[/yellow] {message}", highlight=False)

    def error(self, message: str) -> None:
        err_console.print(f"[red]error:[/red] {message}", highlight=False)

    @contextmanager
    def busy(self, message: str) -> Iterator[object]:
        with console.status(message) as status:
            yield status

    @contextmanager
    def measuring(
        self, modes: Sequence[Mode], iterations: Callable[[Mode], int | None]
    ) -> Iterator[Callable[[Mode], Callable[[bool], None]]]:
        progress = ModeProgress(modes, iterations)
        with progress.progress:
            yield progress.callback

    def job_done(self, result: RunResult, verdicts: str, files: Path) -> None:
        console.print(summary_table(result))
        if any(mode.time_split is not None for mode in result.modes):
            console.print(time_split_table(result))
        if any(mode.hop_split is not None for mode in result.modes):
            console.print(hop_split_table(result))
        if any(mode.handshakes is not None and mode.handshakes.available for mode in result.modes):
            console.print(handshakes_table(result))
        print_not_applicable(result)
        print_failures(result)
        console.print(verdicts)
        console.print(f"results: {files}/ (results.json, modes.csv, iterations.csv, manifest.json)")

    def deliveries(self, deliveries: Sequence[Delivery]) -> None:
        print_deliveries(deliveries, self._shown_path)
