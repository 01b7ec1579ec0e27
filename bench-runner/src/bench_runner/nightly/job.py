"""One scheduled run: what supercronic starts and `make nightly` runs by hand. Under the
nightly lock: `bench-runner run` with the nightly plan (the run itself writes results,
feeds InfluxDB and the Pushgateway), then the job's own status for the alert, then the
pruning of scheduled runs past RESULTS_KEEP_DAYS after a successful one."""

import subprocess
from datetime import UTC, datetime

from bench_runner.console import console, err_console
from bench_runner.nightly.config import NIGHTLY_PREFIX, NightlyConfig
from bench_runner.nightly.guard import nightly_lock
from bench_runner.nightly.status import push_status
from bench_runner.prune import delete, old_runs
from bench_runner.settings import Settings
from bench_runner.sinks.delivery import SinkError

EXIT_STATUS_NOT_PUSHED = 1


def nightly_run_id(now: datetime) -> str:
    return f"{NIGHTLY_PREFIX}{now.astimezone(UTC).strftime('%Y%m%dT%H%M%SZ')}"


def run_command(config: NightlyConfig, run_id: str) -> list[str]:
    # The CLI itself, not a call into it: a scheduled run is exactly what `run` does.
    return ["bench-runner", "run", "--plan", config.nightly_plan, "--run-id", run_id]


def nightly(settings: Settings, config: NightlyConfig) -> int:
    """The job's exit code: the run's, or 1 when the run succeeded but its status could not
    be pushed (the alert would then claim a missing run). Raises NightlyBusyError when
    another nightly run holds the lock."""
    started = datetime.now(UTC)
    run_id = nightly_run_id(started)
    with nightly_lock(settings.results_dir, run_id, started):
        command = run_command(config, run_id)
        console.print(f"nightly: {run_id}: {' '.join(command)}")
        exit_code = subprocess.run(command, check=False).returncode
        finished = datetime.now(UTC)
        console.print(
            f"nightly: {run_id} exited {exit_code} after "
            f"{(finished - started).total_seconds():.0f} s"
        )
        try:
            push_status(settings.pushgateway_url, run_id, exit_code, finished)
        except SinkError as exc:
            err_console.print(
                f"[red]nightly:[/red] status of {run_id} not pushed to "
                f"{settings.pushgateway_url}: {exc}"
            )
            return exit_code or EXIT_STATUS_NOT_PUSHED
        if exit_code == 0:
            for run in old_runs(
                settings.results_dir, config.results_keep_days, finished, NIGHTLY_PREFIX
            ):
                delete(run)
                console.print(
                    f"nightly: pruned {settings.shown_path(run.path)} (ended "
                    f"{run.finished_at:%Y-%m-%d}, RESULTS_KEEP_DAYS={config.results_keep_days})"
                )
        return exit_code
