"""The `bench-runner` command line: options parsed here, runs made by ``lab_run``.

Exit codes: 0 every mode ok; 1 a mode failed (or ``replay`` could not deliver everything,
or ``verdicts`` found a regression);
2 usage or configuration error; 3 netem unreachable or refusing the profile; 4 the lab is
another run's; 5 (``nightly``) another nightly run is in progress.
"""

import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, cast, get_args, get_type_hints

import httpx
import typer
import yaml

from bench_runner import lab_run, logs
from bench_runner.console import (
    ConsolePresenter,
    console,
    err_console,
    fleet_job_table,
    fleet_sweep_table,
    modes_table,
    print_deliveries,
    profiles_table,
    report_table,
    runs_table,
)
from bench_runner.crypto_sweep import NotACryptoSweepError, sweep_markdown
from bench_runner.fleet import FleetError, fetch_fleet, inventory_yaml
from bench_runner.fleet_job.job import DEFAULT_COMMANDS, FleetJob, FleetJobError, SshType, Tool
from bench_runner.fleet_job.run import FleetJobRequest, run_fleet_job
from bench_runner.fleet_job.sweep_run import FleetSweepRequest, run_fleet_sweep
from bench_runner.held.plan import DEFAULT_OPEN_CONCURRENCY, HoldPlan, HoldPlanError, parse_counts
from bench_runner.held.run import HoldRequest, run_hold
from bench_runner.held.table import hold_table
from bench_runner.html_report import (
    ReportFiles,
    build_comparison,
    build_fleet_report,
    build_report,
)
from bench_runner.html_report import runs as report_runs
from bench_runner.html_report.compare import changes as compare_changes
from bench_runner.impairment_table import impairment_markdown
from bench_runner.lab_run import (
    LabInUseError,
    LabUnreachableError,
    RunError,
    RunRequest,
    UsageError,
)
from bench_runner.modes import ALL_MODES
from bench_runner.modes.table import markdown as catalog_markdown
from bench_runner.netem import NetemClient, NetemError
from bench_runner.nightly.config import NightlyConfig
from bench_runner.nightly.guard import NightlyBusyError
from bench_runner.nightly.job import nightly as nightly_job
from bench_runner.nightly.schedule import ScheduleError, crontab
from bench_runner.payloads import BulkSize
from bench_runner.plan import BUILTIN_PLANS, Plan, PlanError, load_plan, override
from bench_runner.precision_table import precision_markdown
from bench_runner.prune import delete, old_runs
from bench_runner.report import load_runs
from bench_runner.reproduce.figures import load_documents
from bench_runner.reproduce.published import EXPERIMENTS, load_experiment
from bench_runner.reproduce.tables import comparison_markdown
from bench_runner.results import new_run_id
from bench_runner.settings import Settings
from bench_runner.sinks.replay import replay_spool
from bench_runner.store import RunNotFoundError
from bench_runner.verdicts.judge import summary_line
from bench_runner.verdicts.table import (
    latest_run_id,
    load_judged,
    plan_config,
    verdicts_table,
)

EXIT_MODE_FAILED = 1
EXIT_USAGE = 2
EXIT_LAB_UNREACHABLE = 3
EXIT_LAB_BUSY = 4
EXIT_NIGHTLY_BUSY = 5
EXIT_CODES: dict[type[RunError], int] = {
    UsageError: EXIT_USAGE,
    LabUnreachableError: EXIT_LAB_UNREACHABLE,
    LabInUseError: EXIT_LAB_BUSY,
}

DEFAULTS = Plan()
"""What a run measures without a plan or options: the help texts name its values."""

app = typer.Typer(
    help="Measure management transports against the Transport Lab device.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


# Before every command: the client libraries' logs and Python's warnings on stderr.
@app.callback()
def _logging(
    log_level: Annotated[
        logs.LogLevel,
        typer.Option(
            envvar="BENCH_RUNNER_LOG_LEVEL",
            case_sensitive=False,
            help="client libraries' log records shown on stderr from this level up",
        ),
    ] = logs.LogLevel.WARNING,
) -> None:
    logs.configure(log_level)


class NetemControl(StrEnum):
    API = "api"
    NONE = "none"


class OutputFormat(StrEnum):
    TABLE = "table"
    YAML = "yaml"


def _fail(message: str, code: int) -> typer.Exit:
    err_console.print(f"[red]error:[/red] {message}")
    return typer.Exit(code)


def _on_the_lab[Request, Result](
    run: Callable[[Settings, Request, ConsolePresenter], Result], request: Request
) -> Result:
    """``run`` the request on the lab, shown on the console; its failure exits with the
    failure's own code."""
    settings = Settings()
    try:
        return run(settings, request, ConsolePresenter(settings.shown_path))
    except RunError as exc:
        raise _fail(str(exc), EXIT_CODES[type(exc)]) from exc


def _default(value: object) -> str:
    """How a help text names a default that a plan may set otherwise."""
    return f"default: the plan's, else {value}"


def _split(text: str | None, separator: str) -> list[str] | None:
    if text is None:
        return None
    return [item.strip() for item in text.split(separator) if item.strip()]


@dataclass(frozen=True)
class PlanField:
    """Marks a ``run`` option as an override of the plan field ``name`` (a list field when
    ``separator`` splits the option's text)."""

    name: str
    separator: str | None = None

    def value(self, given: object) -> object:
        if self.separator is None or not isinstance(given, str):
            return given
        return [item.strip() for item in given.split(self.separator) if item.strip()]


def plan_overrides(command: Callable[..., object], given: dict[str, object]) -> dict[str, object]:
    """The plan fields the options of ``command`` that carry a ``PlanField`` set (those
    given: not None), validated later by the plan model."""
    overrides: dict[str, object] = {}
    for option, hint in get_type_hints(command, include_extras=True).items():
        field = next(
            (m for m in getattr(hint, "__metadata__", ()) if isinstance(m, PlanField)), None
        )
        if field is not None and given.get(option) is not None:
            overrides[field.name] = field.value(given[option])
    return overrides


@app.command()
def run(
    profile: Annotated[
        str | None,
        typer.Option(
            help="netem profile(s) to apply, comma-separated (see `profiles`); "
            + _default(",".join(DEFAULTS.profiles))
        ),
        PlanField("profiles", ","),
    ] = None,
    modes: Annotated[
        str | None,
        typer.Option(
            help="comma-separated mode names (see `modes`), or 'all'; default: the plan's, else "
            "the six original modes"
        ),
        PlanField("modes", ","),
    ] = None,
    lan_profile: Annotated[
        str | None,
        typer.Option(
            help="the LAN hop's netem profile behind the jump host and the head-end (the "
            "relayed modes: jump/*, proxy/*; --profile is then the WAN hop's); "
            + _default(DEFAULTS.lan_profile)
        ),
        PlanField("lan_profile"),
    ] = None,
    clients: Annotated[
        str | None,
        typer.Option(
            help="comma-separated clients: 'floor' (asyncssh, httpx, python-ssl, quic-go), "
            "'all', or library names (paramiko, openssh, netmiko, scrapli, requests, ncclient, "
            "scrapli-netconf, aioquic, curl, ...; docs/modes.md lists them); "
            + _default(",".join(DEFAULTS.client_names()))
        ),
        PlanField("clients", ","),
    ] = None,
    iterations: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="a fixed count of measured iterations per mode, whatever the precision; "
            "default: the plan's, else until the median is precise (--precision)",
        ),
        PlanField("iterations"),
    ] = None,
    precision: Annotated[
        float | None,
        typer.Option(
            min=0.01,
            help="measure each mode until its median's 95 % interval is within this many "
            "percent of it; " + _default(DEFAULTS.precision_pct),
        ),
        PlanField("precision_pct"),
    ] = None,
    min_iterations: Annotated[
        int | None,
        typer.Option(
            min=1, help="fewest measured iterations per mode; " + _default(DEFAULTS.min_iterations)
        ),
        PlanField("min_iterations"),
    ] = None,
    max_iterations: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="most measured iterations per mode when not precise; "
            + _default(DEFAULTS.max_iterations),
        ),
        PlanField("max_iterations"),
    ] = None,
    mode_time_cap: Annotated[
        float | None,
        typer.Option(
            min=1.0,
            help="seconds of measured iterations after which a mode stops short of its "
            "precision; " + _default(DEFAULTS.mode_time_cap_s),
        ),
        PlanField("mode_time_cap_s"),
    ] = None,
    warmup: Annotated[
        int | None,
        typer.Option(min=0, help="discarded iterations per mode; " + _default(DEFAULTS.warmup)),
        PlanField("warmup"),
    ] = None,
    commands: Annotated[
        str | None,
        typer.Option(
            help="the CLI commands of an iteration, separated by semicolons (their number is "
            'how many are listed), e.g. "show version;show clock"; '
            + _default(f'"{";".join(DEFAULTS.commands)}"')
        ),
        PlanField("commands", ";"),
    ] = None,
    plan: Annotated[
        str | None,
        typer.Option(help="plan file (YAML) or built-in plan: " + ", ".join(BUILTIN_PLANS)),
    ] = None,
    targets: Annotated[
        Path | None,
        typer.Option(
            help="inventory YAML of real devices to measure instead of the emulator (no netem)"
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            help="mode (or mode@client) the speedup is computed against; "
            + _default(DEFAULTS.baseline)
        ),
        PlanField("baseline"),
    ] = None,
    run_id: Annotated[
        str | None,
        typer.Option(
            help="default: UTC start time + random; suffixed with -<profile> or -<target> when "
            "the run has several"
        ),
    ] = None,
    no_sinks: Annotated[
        bool,
        typer.Option(
            "--no-sinks", help="write results files only; skip InfluxDB, Pushgateway, replay"
        ),
    ] = False,
    netem: Annotated[
        NetemControl,
        typer.Option(help="'none' skips the netem API and records engine 'none', profile 'local'"),
    ] = NetemControl.API,
    timeout: Annotated[
        float | None,
        typer.Option(
            min=1.0, help="seconds allowed per iteration; " + _default(f"{DEFAULTS.timeout_s:g}")
        ),
        PlanField("timeout_s"),
    ] = None,
    netconf_framing: Annotated[
        str | None,
        typer.Option(
            help="NETCONF modes: '1.1' (chunked) or '1.0' (end-of-message), comma-separated to "
            "measure each; " + _default(",".join(DEFAULTS.netconf_framings()))
        ),
        PlanField("netconf_framing", ","),
    ] = None,
    netconf_reply_bytes: Annotated[
        str | None,
        typer.Option(
            help="NETCONF modes: size of each <get> reply in bytes, comma-separated to measure "
            "each; " + _default(",".join(map(str, DEFAULTS.netconf_reply_sizes())))
        ),
        PlanField("netconf_reply_bytes", ","),
    ] = None,
    wait_for_lab: Annotated[
        float,
        typer.Option(
            min=0.0,
            help="seconds to wait for another run to free the lab (one run at a time); "
            "default: refuse at once",
        ),
    ] = 0.0,
    tunnel_bulk_sizes: Annotated[
        str | None,
        typer.Option(
            help=f"tunnel/bulk and https/bulk downloads, comma-separated: "
            f"{', '.join(get_args(BulkSize))}; " + _default(",".join(DEFAULTS.tunnel_bulk_sizes))
        ),
        PlanField("tunnel_bulk_sizes", ","),
    ] = None,
    fleet_hosts: Annotated[
        str | None,
        typer.Option(
            help="ssh/fleet-show-version: how many of the lab's emulated devices, comma-separated "
            "to measure each; " + _default(",".join(map(str, DEFAULTS.fleet_host_counts())))
        ),
        PlanField("fleet_hosts", ","),
    ] = None,
    fleet_repeats: Annotated[
        str | None,
        typer.Option(
            help="ssh/fleet-show-version: how many times the whole run is repeated per "
            "iteration, comma-separated; "
            + _default(",".join(map(str, DEFAULTS.fleet_repeat_counts())))
        ),
        PlanField("fleet_repeats", ","),
    ] = None,
    restconf_encoding: Annotated[
        str | None,
        typer.Option(
            help="RESTCONF reads: 'json' or 'xml', comma-separated to measure each; "
            + _default(",".join(DEFAULTS.restconf_encodings()))
        ),
        PlanField("restconf_encoding", ","),
    ] = None,
) -> None:
    """Apply a netem profile, measure each mode, write results and feed the sinks; the
    profile that was active before is applied back at the end."""
    overrides = plan_overrides(run, locals())
    try:
        merged = override(load_plan(plan), overrides)
    except PlanError as exc:
        raise _fail(str(exc), EXIT_USAGE) from exc
    request = RunRequest(
        plan=merged,
        run_id=run_id or new_run_id(datetime.now(UTC)),
        netem=netem is NetemControl.API,
        targets=targets,
        publish=not no_sinks,
        wait_for_lab_s=wait_for_lab,
        argv=sys.argv,
    )
    outcome = _on_the_lab(lab_run.run, request)
    if not outcome.ok:
        raise typer.Exit(EXIT_MODE_FAILED)


@app.command()
def profiles(
    output: Annotated[
        OutputFormat, typer.Option(help="yaml prints netem's profile fields")
    ] = OutputFormat.TABLE,
) -> None:
    """List the profiles netem offers."""
    settings = Settings()
    client = NetemClient(settings.netem_url)
    try:
        listed = client.list_profiles()
    except (NetemError, httpx.HTTPError) as exc:
        raise _fail(f"netem at {settings.netem_url}: {exc}", EXIT_LAB_UNREACHABLE) from exc
    finally:
        client.close()
    if output is OutputFormat.YAML:
        dumped = [profile.model_dump() for profile in listed]
        console.print(yaml.safe_dump({"profiles": dumped}, sort_keys=False), end="")
    else:
        console.print(profiles_table(listed))


@app.command()
def inventory(
    output: Annotated[
        Path | None,
        typer.Option(help="write the inventory here (default: RESULTS_DIR/fleet.yaml)"),
    ] = None,
) -> None:
    """Write an inventory of the lab's emulated devices (the device's fleet), for --targets."""
    settings = Settings()
    try:
        listing = fetch_fleet(settings)
    except FleetError as exc:
        raise _fail(f"the device's fleet: {exc}", EXIT_LAB_UNREACHABLE) from exc
    path = output or settings.results_dir / "fleet.yaml"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(inventory_yaml(listing, settings, datetime.now(UTC)), encoding="utf-8")
    except OSError as exc:
        raise _fail(f"cannot write {path}: {exc}", EXIT_USAGE) from exc
    console.print(
        f"{len(listing.devices)} emulated device(s) in {settings.shown_path(path)}; "
        f"measure them with: run --targets {path}"
    )


# Options that fleet-job, fleet-sweep and hold share, spelled once so their help stays alike.
ToolOption = Annotated[str, typer.Option(help="nornir or ansible")]
ConnectionOption = Annotated[
    str,
    typer.Option(help="nornir: netmiko, scrapli or ncclient; ansible: network_cli, netconf or uri"),
]
SshTypeOption = Annotated[
    str | None, typer.Option(help="network_cli's SSH library: paramiko or libssh (default)")
]
DeviceTimeoutOption = Annotated[
    float, typer.Option(min=1.0, help="seconds per device and operation")
]
ProfileOption = Annotated[str, typer.Option(help="netem profile")]
RunIdOption = Annotated[str | None, typer.Option(help="default: a new one")]
NoSinksOption = Annotated[bool, typer.Option(help="write the results file only")]
WaitForLabOption = Annotated[
    float, typer.Option(min=0.0, help="seconds to wait for another run to free the lab")
]


@app.command(name="fleet-job")
def fleet_job(
    tool: ToolOption,
    connection: ConnectionOption,
    operation: Annotated[
        str,
        typer.Option(
            help="show, config (netmiko, scrapli, network_cli), facts (network_cli), "
            "netconf_get (ncclient, netconf), api_get (uri)"
        ),
    ] = "show",
    devices: Annotated[int, typer.Option(min=1, help="how many of the fleet's devices")] = 3,
    workers: Annotated[int, typer.Option(min=1, help="Nornir's num_workers, Ansible's forks")] = 3,
    profile: ProfileOption = "regional",
    ssh_type: SshTypeOption = None,
    persistent: Annotated[
        bool,
        typer.Option(
            help="network_cli: keep each device's connection across tasks (Ansible's "
            "default); --no-persistent resets it after every task"
        ),
    ] = True,
    commands: Annotated[
        str | None,
        typer.Option(
            help="show: the commands, ';'-separated (Ansible: a task each); default 'show version'"
        ),
    ] = None,
    timeout: DeviceTimeoutOption = 60.0,
    run_id: RunIdOption = None,
    no_sinks: NoSinksOption = False,
    wait_for_lab: WaitForLabOption = 0.0,
) -> None:
    """Run Nornir or Ansible across the lab's fleet as operators do (docs/fleet-jobs.md): one
    job, timed whole and per device, beside the model ceil(devices/workers) x per-device time."""
    try:
        job = FleetJob(
            tool=cast(Tool, tool),
            connection=connection,
            operation=operation,
            devices=devices,
            workers=workers,
            ssh_type=cast(SshType | None, ssh_type),
            persistent=persistent,
            commands=tuple(_split(commands, ";") or DEFAULT_COMMANDS),
        )
    except FleetJobError as exc:
        raise _fail(str(exc), EXIT_USAGE) from exc
    if ssh_type not in (None, "paramiko", "libssh"):
        raise _fail(f"--ssh-type is paramiko or libssh, not {ssh_type!r}", EXIT_USAGE)
    request = FleetJobRequest(
        job=job,
        profile=profile,
        run_id=run_id or new_run_id(datetime.now(UTC)),
        timeout_s=timeout,
        publish=not no_sinks,
        wait_for_lab_s=wait_for_lab,
    )
    result = _on_the_lab(run_fleet_job, request)
    console.print(fleet_job_table(result))
    if not result.ok:
        err_console.print(f"[red]{result.error}")
        raise typer.Exit(EXIT_MODE_FAILED)


def _counts(name: str, text: str) -> tuple[int, ...]:
    try:
        return tuple(int(item) for item in _split(text, ",") or [])
    except ValueError as exc:
        message = f"--{name} takes whole numbers, comma-separated, not {text!r}"
        raise _fail(message, EXIT_USAGE) from exc


@app.command(name="fleet-sweep")
def fleet_sweep(
    tool: ToolOption,
    connection: ConnectionOption,
    operation: Annotated[str, typer.Option(help="as fleet-job's")] = "show",
    devices: Annotated[
        str, typer.Option(help="how many of the fleet's devices, comma-separated: a step each")
    ] = "1,3",
    workers: Annotated[
        str,
        typer.Option(
            help="Nornir's num_workers, Ansible's forks, comma-separated; a step with more "
            "workers than devices is skipped"
        ),
    ] = "1,3",
    profile: Annotated[str, typer.Option(help="netem profiles, comma-separated")] = "regional",
    ssh_type: SshTypeOption = None,
    persistent: Annotated[
        bool, typer.Option(help="network_cli: --no-persistent resets it after every task")
    ] = True,
    commands: Annotated[str | None, typer.Option(help="show: the commands, ';'-separated")] = None,
    timeout: DeviceTimeoutOption = 60.0,
    sweep_id: Annotated[
        str | None, typer.Option(help="default: a new run id; steps are <sweep>-<profile>-dN-wM")
    ] = None,
    no_sinks: Annotated[bool, typer.Option(help="write the results files only")] = False,
    wait_for_lab: WaitForLabOption = 0.0,
) -> None:
    """Fleet jobs over devices x workers x profiles (docs/fleet-jobs.md): a fleet job per
    step under one sweep id, each step's fleet-job.json kept, the sweep's fleet-sweep.json
    with the knee where the client's CPU, not the network, sets the job's time."""
    device_counts, worker_counts = _counts("devices", devices), _counts("workers", workers)
    if ssh_type not in (None, "paramiko", "libssh"):
        raise _fail(f"--ssh-type is paramiko or libssh, not {ssh_type!r}", EXIT_USAGE)
    try:
        job = FleetJob(
            tool=cast(Tool, tool),
            connection=connection,
            operation=operation,
            devices=max(device_counts, default=1),
            workers=1,
            ssh_type=cast(SshType | None, ssh_type),
            persistent=persistent,
            commands=tuple(_split(commands, ";") or DEFAULT_COMMANDS),
        )
        request = FleetSweepRequest(
            job=job,
            devices=device_counts,
            workers=worker_counts,
            profiles=tuple(_split(profile, ",") or []),
            sweep_id=sweep_id or new_run_id(datetime.now(UTC)),
            timeout_s=timeout,
            publish=not no_sinks,
            wait_for_lab_s=wait_for_lab,
        )
        request.plan()
    except FleetJobError as exc:
        raise _fail(str(exc), EXIT_USAGE) from exc
    sweep = _on_the_lab(run_fleet_sweep, request)
    console.print(fleet_sweep_table(sweep))
    if not sweep.ok:
        failed = [step.run_id for step in sweep.steps if not step.ok]
        err_console.print(f"[red]step(s) failed: {', '.join(failed)}")
        raise typer.Exit(EXIT_MODE_FAILED)


@app.command()
def hold(
    transport: Annotated[str, typer.Option(help="ssh, https, netconf or gnmi")],
    connections: Annotated[
        str,
        typer.Option(
            help="connections held at once, comma-separated and ascending: a step each; the "
            "sweep stops at the first step that cannot hold them all"
        ),
    ] = "1,10,100",
    operations_per_connection: Annotated[
        int | None,
        typer.Option(help="operations each connection runs, one after the other (default 20)"),
    ] = None,
    duration: Annotated[
        float | None,
        typer.Option(help="instead: seconds each connection runs operations (at most 300)"),
    ] = None,
    open_concurrency: Annotated[
        int, typer.Option(help="connections in their setup at once")
    ] = DEFAULT_OPEN_CONCURRENCY,
    profile: ProfileOption = "regional",
    run_id: RunIdOption = None,
    no_sinks: NoSinksOption = False,
    wait_for_lab: WaitForLabOption = 0.0,
) -> None:
    """Hold N connections of one transport open at once (docs/fleet-jobs.md, "Held
    connections"): per step the setup time, each operation's p50/p95, operations per second
    and memory per connection on the runner and the device."""
    if operations_per_connection is None and duration is None:
        operations_per_connection = 20
    try:
        plan = HoldPlan(
            transport=transport,
            connections=parse_counts(connections),
            operations_per_connection=operations_per_connection,
            duration_s=duration,
            open_concurrency=open_concurrency,
        )
    except HoldPlanError as exc:
        raise _fail(str(exc), EXIT_USAGE) from exc
    request = HoldRequest(
        plan=plan,
        profile=profile,
        run_id=run_id or new_run_id(datetime.now(UTC)),
        publish=not no_sinks,
        wait_for_lab_s=wait_for_lab,
    )
    result = _on_the_lab(run_hold, request)
    console.print(hold_table(result))
    if result.limit is not None:
        limit = result.limit
        err_console.print(
            f"[yellow]limit at {limit.connections} connections ({limit.failed} failed): "
            f"{limit.kind}: {limit.detail}; errors: {limit.errors}"
        )
    if not result.ok:
        err_console.print(f"[red]{result.error}")
        raise typer.Exit(EXIT_MODE_FAILED)


@app.command()
def replay() -> None:
    """Deliver payloads spooled while InfluxDB or the Pushgateway was down."""
    settings = Settings()
    deliveries = replay_spool(settings)
    if not deliveries:
        console.print("spool is empty")
    print_deliveries(deliveries, settings.shown_path)
    if not all(delivery.delivered for delivery in deliveries):
        raise typer.Exit(EXIT_MODE_FAILED)


@app.command(name="modes")
def list_modes(
    n_commands: Annotated[
        int, typer.Option(min=1, help="commands per iteration (default: the default commands')")
    ] = len(DEFAULTS.commands),
    markdown: Annotated[
        bool,
        typer.Option(
            "--markdown", help="print the catalog as the Markdown page docs/modes.md instead"
        ),
    ] = False,
) -> None:
    """List the modes and clients with their round-trip bounds."""
    if markdown:
        sys.stdout.write(catalog_markdown())
        return
    console.print(modes_table(ALL_MODES, n_commands))


@app.command()
def verdicts(
    run: Annotated[
        list[str] | None,
        typer.Option(
            "--run", help="run id under $RESULTS_DIR, repeatable; default: the latest run"
        ),
    ] = None,
) -> None:
    """Each series' verdict against the earlier nights of its plan; exit 1 when any
    regressed (a run from before verdicts is judged now)."""
    settings = Settings()
    try:
        run_ids = run or [latest_run_id(settings.results_dir)]
        runs = [load_judged(settings.results_dir, run_id) for run_id in run_ids]
    except RunNotFoundError as exc:
        raise _fail(str(exc), EXIT_USAGE) from exc
    console.print(verdicts_table(runs))
    for judged in runs:
        console.print(f"{judged.run_id}: {summary_line(judged, plan_config(judged.plan))}")
    regressed = any(
        mode.verdict is not None and mode.verdict.verdict == "regression"
        for judged in runs
        for mode in judged.modes
    )
    if regressed:
        raise typer.Exit(EXIT_MODE_FAILED)


@app.command()
def report(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            help="run ids or run id prefixes under $RESULTS_DIR (a plan run with several "
            "profiles writes <run-id>-<profile>)"
        ),
    ],
) -> None:
    """p50 against the round-trip bound, harness overhead, run wall time against its
    RTT-bound minimum (what `make bench-matrix` prints)."""
    runs = load_runs(Settings().results_dir, run_ids)
    if not runs:
        raise _fail(f"no results.json for {', '.join(run_ids)}", EXIT_USAGE)
    console.print(report_table(runs))
    console.print(runs_table(runs))


def _report_done(files: ReportFiles) -> None:
    drawn = [chart.name for chart in files.charts if chart.spec]
    skipped = [f"{chart.name} ({chart.note})" for chart in files.charts if not chart.spec]
    console.print(
        f"report written to {Settings().shown_path(files.html)} ({len(drawn)} charts in "
        f"{files.render_seconds:.1f} s: {', '.join(drawn)})"
    )
    if skipped:
        console.print("skipped: " + "; ".join(skipped))


@app.command(name="report-html")
def report_html(
    run_id: Annotated[
        str | None,
        typer.Argument(help="run id or unique prefix under $RESULTS_DIR; default: --last"),
    ] = None,
    last: Annotated[
        int,
        typer.Option(min=1, help="without RUN_ID: the LAST most recent runs, in one report"),
    ] = 1,
    baseline: Annotated[
        str | None,
        typer.Option(help="mode the speedup table divides by (default: the run's baseline)"),
    ] = None,
    output: Annotated[Path | None, typer.Option(help="default: $RESULTS_DIR/<run>/report/")] = None,
) -> None:
    """One self-contained HTML report (charts also as PNG and SVG) of a run and the other
    runs of its sweep, or of a fleet sweep (its id), from results/ alone."""
    results_dir = Settings().results_dir
    try:
        fleet = report_runs.find_fleet_sweep(results_dir, run_id) if run_id else None
        if fleet is not None:
            _report_done(build_fleet_report(fleet, output=output))
            return
        if run_id:
            main = report_runs.find_run(results_dir, run_id)
            runs = report_runs.sweep_runs(results_dir, main)
        else:
            runs = report_runs.latest_runs(results_dir, last)
    except RunNotFoundError as error:
        raise _fail(str(error), EXIT_USAGE) from error
    _report_done(build_report(results_dir, runs, baseline=baseline, output=output))


@app.command()
def compare(
    run_a: Annotated[str, typer.Argument(help="the reference run (id or unique prefix)")],
    run_b: Annotated[str, typer.Argument(help="the run judged against it")],
    output: Annotated[
        Path | None,
        typer.Option(help="default: $RESULTS_DIR/<RUN_B>/report/compare-<RUN_A>/"),
    ] = None,
) -> None:
    """Two runs side by side in one HTML report: what changed, by how much, and how sure
    (bootstrap interval of the median difference, Mann-Whitney test)."""
    results_dir = Settings().results_dir
    try:
        a = report_runs.find_run(results_dir, run_a)
        b = report_runs.find_run(results_dir, run_b)
    except RunNotFoundError as error:
        raise _fail(str(error), EXIT_USAGE) from error
    files = build_comparison(results_dir, a, b, output=output)
    _report_done(files)
    for change in compare_changes(a, b)[0]:
        console.print(
            f"{change.series}: {change.p50_a_ms:.2f} -> {change.p50_b_ms:.2f} ms "
            f"({change.change_pct:+.1f} %), {change.verdict}"
        )


@app.command(name="reproduce-tables")
def reproduce_tables(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            help="run ids or run id prefixes under $RESULTS_DIR of the reproduce-* plans "
            "(make reproduce names them reproduce-<UTC time>-<experiment>)"
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(help="default: $RESULTS_DIR/<first RUN_ID>/comparison.md"),
    ] = None,
) -> None:
    """Tables of the lab's figures beside the published ones of the benchmarks it reproduces
    (clibench and its head-end, five SSH libraries, NETCONF clients, ssh-auto-forward):
    speedups and whether the ranking holds."""
    experiments = [load_experiment(name) for name in EXPERIMENTS]
    path, count = _write_page(
        "reproduce-tables",
        run_ids,
        output,
        "comparison.md",
        lambda runs, command, made_at: comparison_markdown(experiments, runs, command, made_at),
    )
    console.print(f"comparison of {count} run(s) written to {path}")


@app.command(name="crypto-table")
def crypto_table(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            help="run ids or run id prefixes under $RESULTS_DIR of the crypto sweep's steps "
            "(make crypto-sweep names them crypto-<UTC time>-<step>); the step that ran "
            "first is the reference"
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(help="default: $RESULTS_DIR/<first RUN_ID>/crypto.md"),
    ] = None,
) -> None:
    """The crypto sweep's tables: per SSH key exchange and TLS group held on the device, what
    each client negotiated (or why it could not), its round trips, bytes and CPU per
    connection, its p50 per profile, and the change against the first step."""
    try:
        path, count = _write_page("crypto-table", run_ids, output, "crypto.md", sweep_markdown)
    except NotACryptoSweepError as exc:
        raise _fail(str(exc), EXIT_USAGE) from exc
    console.print(f"crypto sweep of {count} run(s) written to {path}")


@app.command(name="precision-table")
def precision_table(
    run_ids: Annotated[
        list[str],
        typer.Argument(help="run ids or run id prefixes under $RESULTS_DIR, in the table's order"),
    ],
    output: Annotated[
        Path | None,
        typer.Option(help="default: $RESULTS_DIR/<first RUN_ID>/precision.md"),
    ] = None,
) -> None:
    """Per run: minutes, series, iterations, how many p50s are within their target
    half-width, why the modes stopped: an adaptive run beside a fixed-count one."""
    path, count = _write_page(
        "precision-table", run_ids, output, "precision.md", precision_markdown
    )
    console.print(path.read_text(encoding="utf-8"))
    console.print(f"precision of {count} run(s) written to {path}")


@app.command(name="impairment-table")
def impairment_table(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            help="run ids or run id prefixes under $RESULTS_DIR (make bench-impairment names "
            "them impairment-<UTC time>-<profile>)"
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(help="default: $RESULTS_DIR/<first RUN_ID>/impairment.md"),
    ] = None,
) -> None:
    """Per mode and loss rate: p50, p95 and p99 with their intervals beside the loss model's,
    how often an iteration met a retransmission, the time recovery took, the timeouts."""
    path, count = _write_page(
        "impairment-table", run_ids, output, "impairment.md", impairment_markdown
    )
    console.print(path.read_text(encoding="utf-8"), markup=False, highlight=False, soft_wrap=True)
    console.print(f"impairment table of {count} run(s) written to {path}")


def _write_page(
    name: str,
    run_ids: list[str],
    output: Path | None,
    filename: str,
    render: Callable[[list[dict[str, Any]], str, str], str],
) -> tuple[Path, int]:
    """A Markdown page of the runs ``run_ids`` name, made by ``render`` with the command
    that asked for it and when, at ``output`` (default: ``filename`` in the first id's
    directory); the path and how many runs it read."""
    results_dir = Settings().results_dir
    runs = load_documents(results_dir, run_ids)
    if not runs:
        raise _fail(f"no results.json for {', '.join(run_ids)}", EXIT_USAGE)
    command = f"bench-runner {name} " + " ".join(run_ids)
    made_at = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = render(runs, command, made_at)
    path = output or results_dir / run_ids[0] / filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path, len(runs)


@app.command(name="nightly")
def nightly_command() -> None:
    """One scheduled run (what the scheduler starts; `make nightly`): `run --plan
    $NIGHTLY_PLAN --run-id nightly-<UTC time>` under the nightly lock, its status pushed to
    the Pushgateway, then scheduled runs older than $RESULTS_KEEP_DAYS deleted."""
    try:
        code = nightly_job(Settings(), NightlyConfig())
    except NightlyBusyError as exc:
        raise _fail(str(exc), EXIT_NIGHTLY_BUSY) from exc
    if code:
        raise typer.Exit(code)


@app.command(name="nightly-crontab")
def nightly_crontab() -> None:
    """Print the scheduler's crontab from NIGHTLY_SCHEDULE, CRON_TZ and NIGHTLY_PLAN,
    refusing a wrong value (exit 2) with its name."""
    try:
        text = crontab(NightlyConfig())
    except ScheduleError as exc:
        raise _fail(str(exc), EXIT_USAGE) from exc
    sys.stdout.write(text)


@app.command()
def prune(
    keep_days: Annotated[
        int, typer.Option(min=0, help="delete runs that ended more than this many days ago")
    ],
    prefix: Annotated[
        str, typer.Option(help="only runs whose id starts with this (e.g. nightly-)")
    ] = "",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="list, delete nothing")] = False,
) -> None:
    """Delete old runs from $RESULTS_DIR: directories with a results.json whose run ended
    before the limit; nothing else (spool, plan files, other directories) is touched."""
    settings = Settings()
    runs = old_runs(settings.results_dir, keep_days, datetime.now(UTC), prefix)
    for run in runs:
        if not dry_run:
            delete(run)
        verb = "would delete" if dry_run else "deleted"
        console.print(f"{verb} {settings.shown_path(run.path)} (ended {run.finished_at:%Y-%m-%d})")
    if not runs:
        console.print(f"no run older than {keep_days} days" if keep_days else "keeping every run")
