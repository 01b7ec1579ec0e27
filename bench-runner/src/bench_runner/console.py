"""Terminal presentation: a progress bar per mode and summary tables (rich)."""

from collections.abc import Callable, Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bench_runner.modes import Mode
from bench_runner.netem import NetemProfile
from bench_runner.results import RunResult
from bench_runner.sinks.delivery import Delivery

console = Console()
err_console = Console(stderr=True)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


class ModeProgress:
    """One bar per mode, counting warm-up and measured iterations, with an error count."""

    def __init__(self, modes: Sequence[Mode], iterations_per_mode: int) -> None:
        self.progress = Progress(
            TextColumn("{task.description:<18}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[errors]} errors"),
            TimeElapsedColumn(),
            console=console,
        )
        self._tasks = {
            mode.name: self.progress.add_task(mode.name, total=iterations_per_mode, errors=0)
            for mode in modes
        }
        self._errors = dict.fromkeys(self._tasks, 0)

    def callback(self, mode: Mode) -> Callable[[bool], None]:
        task = self._tasks[mode.name]

        def on_iteration(ok: bool) -> None:
            if not ok:
                self._errors[mode.name] += 1
            self.progress.update(task, advance=1, errors=self._errors[mode.name])

        return on_iteration


def summary_table(run: RunResult) -> Table:
    table = Table(title=f"run {run.run_id}  profile {run.profile.name} ({run.profile.engine})")
    for header in ("mode", "ok", "n", "err", "p50 ms", "p95 ms", "mean ms", "sd ms",
                   "RTT ms", "p50/RTT", "min RT", "exp RT"):
        table.add_column(header, justify="left" if header == "mode" else "right")
    for mode in run.modes:
        stats = mode.stats
        rtt = mode.verified_rtt_ms
        ratio = "-" if stats.p50_ms is None or not rtt else f"{stats.p50_ms / rtt:.1f}"
        table.add_row(
            mode.mode, "[green]yes" if mode.ok else "[red]no", str(stats.n), str(stats.errors),
            _ms(stats.p50_ms), _ms(stats.p95_ms), _ms(stats.mean_ms), _ms(stats.stddev_ms),
            _ms(rtt), ratio, str(mode.min_round_trips), str(mode.expected_round_trips),
        )
    return table


def print_failures(run: RunResult) -> None:
    for mode in run.modes:
        for message in mode.error_messages:
            err_console.print(f"[red]{mode.mode}[/red]: {message}", markup=True, highlight=False)


def modes_table(modes: Sequence[Mode], n_commands: int) -> Table:
    table = Table(title=f"modes (round trips for {n_commands} commands per iteration)")
    for header in ("mode", "transport", "client", "min RT", "exp RT", "description"):
        table.add_column(header)
    for mode in modes:
        table.add_row(mode.name, mode.transport.value, mode.client,
                      str(mode.min_round_trips(n_commands)),
                      str(mode.expected_round_trips(n_commands)), mode.description)
    return table


def profiles_table(profiles: Sequence[NetemProfile]) -> Table:
    table = Table(title="netem profiles")
    for header in ("name", "rtt ms", "jitter ms", "loss %", "rate Mbit/s", "source"):
        table.add_column(header)
    for profile in profiles:
        rate = f"{profile.rate_mbit:g}" if profile.rate_mbit else "-"
        table.add_row(profile.name, f"{profile.rtt_ms:g}", f"{profile.jitter_ms:g}",
                      f"{profile.loss_pct:g}", rate, profile.source or "")
    return table


def print_deliveries(deliveries: Sequence[Delivery]) -> None:
    for delivery in deliveries:
        if delivery.delivered:
            console.print(f"[green]{delivery.sink}[/green]: {delivery.detail}")
        else:
            err_console.print(
                f"[yellow]WARNING {delivery.sink} unavailable[/yellow]: {delivery.detail}; "
                f"payload kept in {delivery.spooled_to} (replayed by the next run or "
                "`bench-runner replay`)"
            )
