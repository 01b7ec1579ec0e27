"""The `bench-runner` command line."""

import asyncio
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import httpx
import typer
import yaml
from pydantic import ValidationError

from bench_runner.console import (
    ModeProgress,
    console,
    err_console,
    modes_table,
    print_deliveries,
    print_failures,
    print_not_applicable,
    profiles_table,
    report_table,
    runs_table,
    summary_table,
    time_split_table,
)
from bench_runner.lab_info import device_version, runner_info
from bench_runner.lab_lock import LabLock, run_owner
from bench_runner.modes import (
    ALL_MODES,
    MODES_BY_NAME,
    Mode,
    Selection,
    Target,
    select_modes,
    sweep_bulk_sizes,
    sweep_netconf,
)
from bench_runner.netem import LabBusyError, NetemClient, NetemError, NetemState
from bench_runner.outputs import write_outputs
from bench_runner.plan import Plan, PlanError, load_plan
from bench_runner.profile_guard import ProfileGuard
from bench_runner.report import load_runs
from bench_runner.results import (
    LabInfo,
    NotApplicable,
    ProfileInfo,
    RunResult,
    SeriesKey,
    TargetInfo,
    apply_baseline,
    apply_floor_ratio,
    apply_rtt_model,
    local_references,
    new_run_id,
    write_results,
)
from bench_runner.runner import ModeRun, RunPlan, run_mode
from bench_runner.settings import Settings
from bench_runner.sinks.publish import publish_run
from bench_runner.sinks.replay import replay_spool
from bench_runner.targets import load_inventory

EXIT_MODE_FAILED = 1
EXIT_USAGE = 2
EXIT_LAB_UNREACHABLE = 3
EXIT_LAB_BUSY = 4

app = typer.Typer(
    help="Measure management transports against the Transport Lab device.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


class NetemControl(StrEnum):
    API = "api"
    NONE = "none"


class OutputFormat(StrEnum):
    TABLE = "table"
    YAML = "yaml"


def _fail(message: str, code: int) -> typer.Exit:
    err_console.print(f"[red]error:[/red] {message}")
    return typer.Exit(code)


def _split(text: str | None, separator: str) -> list[str] | None:
    if text is None:
        return None
    return [item.strip() for item in text.split(separator) if item.strip()]


def _target(settings: Settings) -> Target:
    if not settings.device_username or settings.device_password is None:
        raise _fail("DEVICE_USERNAME and DEVICE_PASSWORD must be set", EXIT_USAGE)
    return Target(
        host=settings.device_host,
        ssh_port=settings.device_ssh_port,
        https_port=settings.device_https_port,
        netconf_port=settings.device_netconf_port,
        username=settings.device_username,
        password=settings.device_password.get_secret_value(),
    )


def _profile_from_netem(state: NetemState) -> ProfileInfo:
    profile = state.profile
    return ProfileInfo(
        name=profile.name, rtt_ms=profile.rtt_ms, jitter_ms=profile.jitter_ms,
        loss_pct=profile.loss_pct, rate_mbit=profile.rate_mbit, source=profile.source,
        engine=state.engine, engine_reason=state.engine_reason,
        applied_at=state.applied_at, readback=state.readback,
    )


def _profile_without_netem() -> ProfileInfo:
    return ProfileInfo(
        name="local", rtt_ms=0.0, jitter_ms=0.0, loss_pct=0.0, rate_mbit=0.0, source=None,
        engine="none", engine_reason="netem control disabled by --netem none",
        applied_at=None, readback=None,
    )


def _apply_profile(settings: Settings, netem: NetemControl, profile: str,
                   lock: LabLock | None) -> tuple[ProfileInfo, NetemState | None]:
    if netem is NetemControl.NONE:
        if profile != "local":
            raise _fail("--netem none measures without impairment; use --profile local",
                        EXIT_USAGE)
        return _profile_without_netem(), None
    if not settings.netem_url:
        raise _fail("NETEM_URL is empty; set it, or pass --netem none to run without netem",
                    EXIT_USAGE)
    client = NetemClient(settings.netem_url)
    try:
        with console.status(f"applying netem profile {profile!r}"):
            state = client.apply(profile, lock.lease if lock is not None else None)
            return _profile_from_netem(state), state
    except LabBusyError as exc:
        raise _fail(f"the lab is not this run's: {exc}", EXIT_LAB_BUSY) from exc
    except (NetemError, httpx.HTTPError) as exc:
        raise _fail(f"netem at {settings.netem_url}: {exc}", EXIT_LAB_UNREACHABLE) from exc
    finally:
        client.close()


def _unmanaged_profile(target_name: str) -> ProfileInfo:
    return ProfileInfo(
        name="unmanaged", rtt_ms=0.0, jitter_ms=0.0, loss_pct=0.0, rate_mbit=0.0, source=None,
        engine="none", engine_reason=f"real target {target_name} from --targets: its latency "
        "is whatever the network has, netem is not involved",
        applied_at=None, readback=None,
    )


@dataclass(frozen=True)
class Job:
    """One results.json: a target under one profile."""

    run_id: str
    sweep: str
    """The command's run id, shared by its jobs."""
    target: Target
    target_info: TargetInfo
    metrics_url: str | None
    profile: str | None
    """netem profile to apply; None for a real target (no netem)."""


async def _measure(
    modes: list[Mode], target: Target, plan: RunPlan, configured_rtt_ms: float,
    bulk_iterations: int | None, guard: ProfileGuard | None,
) -> list[ModeRun]:
    def mode_plan(mode: Mode) -> RunPlan:
        if mode.transfer_bytes() is not None and bulk_iterations is not None:
            return replace(plan, iterations=bulk_iterations)
        return plan

    progress = ModeProgress(modes, lambda mode: mode_plan(mode).warmup
                            + mode_plan(mode).iterations)
    with progress.progress:
        return [
            await run_mode(mode, target, mode_plan(mode), configured_rtt_ms,
                           progress.callback(mode), guard)
            for mode in modes
        ]


def _jobs(settings: Settings, run_id: str, profiles: list[str],
          targets: Path | None) -> list[Job]:
    if targets is None:
        target = _target(settings)
        info = TargetInfo(host=target.host, ssh_port=target.ssh_port,
                          https_port=target.https_port, netconf_port=target.netconf_port)
        return [
            Job(run_id if len(profiles) == 1 else f"{run_id}-{profile}", run_id, target, info,
                settings.device_metrics_url, profile)
            for profile in profiles
        ]
    try:
        inventory = load_inventory(targets)
        specs = [(spec, spec.target()) for spec in inventory.targets]
    except PlanError as exc:
        raise _fail(str(exc), EXIT_USAGE) from exc
    return [
        Job(run_id if len(specs) == 1 else f"{run_id}-{spec.name}", run_id, target,
            TargetInfo(host=spec.host, ssh_port=spec.ssh_port, https_port=spec.https_port,
                       netconf_port=spec.netconf_port,
                       name=spec.name, platform=spec.platform),
            spec.metrics_url, None)
        for spec, target in specs
    ]


def _reference_port(job: Job) -> int | None:
    """The device metrics port, when it is on the target host (netem never impairs it)."""
    if job.profile is None or not job.metrics_url:
        return None
    url = httpx.URL(job.metrics_url)
    if url.host != job.target.host:
        return None
    return url.port or (443 if url.scheme == "https" else 80)


def _run_job(settings: Settings, job: Job, netem: NetemControl, selection: Selection,
             plan: Plan, no_sinks: bool, references: dict[SeriesKey, tuple[str, float]],
             lock: LabLock | None) -> RunResult:
    """Measure one job, write its files, feed the sinks. ``references`` are the sweep's
    p50s at ``local`` so far, for the round-trip model; ``lock`` the lab's run lock this
    run holds."""
    started_at = datetime.now(UTC)
    netem_state = None
    if job.profile is None:
        profile_info = _unmanaged_profile(job.target_info.name or job.target.host)
    else:
        profile_info, netem_state = _apply_profile(settings, netem, job.profile, lock)
    if job.metrics_url:
        device = device_version(job.metrics_url)
    else:
        device = {"unavailable": "no metrics URL for this target"}
    if "unavailable" in device:
        err_console.print(f"[yellow]WARNING device /version: {device['unavailable']}")

    run_plan = RunPlan(tuple(plan.commands), plan.iterations, plan.warmup, plan.timeout_s,
                       rtt_gate=job.profile is not None, device_metrics_url=job.metrics_url,
                       reference_port=_reference_port(job))
    guard_client = NetemClient(settings.netem_url) if netem_state is not None else None
    guard = (ProfileGuard(guard_client, profile_info.name, netem_state.instance,
                          netem_state.generation)
             if guard_client is not None and netem_state is not None else None)
    try:
        mode_runs = asyncio.run(_measure(selection.modes, job.target, run_plan,
                                         profile_info.rtt_ms, plan.tunnel_bulk_iterations,
                                         guard))
    finally:
        if guard_client is not None:
            guard_client.close()
    results = [mode_run.result for mode_run in mode_runs]
    baseline = apply_baseline(results, plan.baseline)
    apply_floor_ratio(results, {name: mode.client for name, mode in MODES_BY_NAME.items()})
    result = RunResult(
        run_id=job.run_id,
        sweep=job.sweep,
        started_at=started_at,
        finished_at=datetime.now(UTC),
        lab=LabInfo(commit=settings.lab_commit, images=settings.lab_images),
        runner=runner_info(),
        device=device,
        target=job.target_info,
        profile=profile_info,
        modes=results,
        ok=all(mode.ok for mode in results),
        baseline=baseline,
        not_applicable=[NotApplicable(mode=entry.mode, client=entry.client, reason=entry.reason)
                        for entry in selection.not_applicable],
        plan=plan.name,
    )
    # At `local` the reference is the run itself: its prediction is its own p50.
    apply_rtt_model(result.modes, {**references, **local_references(result)})
    path = write_results(result, settings.results_dir)
    write_outputs(result, mode_runs, settings.results_dir, sys.argv)
    console.print(summary_table(result))
    if any(mode.time_split is not None for mode in result.modes):
        console.print(time_split_table(result))
    print_not_applicable(result)
    print_failures(result)
    console.print(f"results: {path.parent}/ (results.json, modes.csv, iterations.csv, "
                  "manifest.json)")
    if not no_sinks:
        print_deliveries(publish_run(settings, result, mode_runs))
    return result


@contextmanager
def _lab_lock(settings: Settings, netem: NetemControl, targets: Path | None, run_id: str,
              wait_s: float) -> Iterator[LabLock | None]:
    """The lab's run lock, for runs that set its profile (not --netem none, not --targets)."""
    if netem is NetemControl.NONE or targets is not None or not settings.netem_url:
        yield None
        return
    lock = LabLock(lambda: NetemClient(settings.netem_url), run_owner(run_id), wait_s=wait_s,
                   on_wait=lambda holder: err_console.print(f"waiting for the lab: {holder}"))
    try:
        lock.__enter__()
    except LabBusyError as exc:
        raise _fail(f"the lab is busy, one run at a time: {exc} (wait with --wait-for-lab "
                    "SECONDS)", EXIT_LAB_BUSY) from exc
    except (NetemError, httpx.HTTPError) as exc:
        raise _fail(f"netem at {settings.netem_url}: {exc}", EXIT_LAB_UNREACHABLE) from exc
    try:
        yield lock
    finally:
        lock.__exit__(None, None, None)


def _merge_plan(plan: Plan, profile: str | None, modes: str | None, clients: str | None,
                iterations: int | None, warmup: int | None, commands: str | None,
                baseline: str | None, timeout: float | None,
                netconf: tuple[str | None, str | None],
                tunnel_bulk_sizes: str | None) -> Plan:
    """Command-line options override the plan's values."""
    overrides: dict[str, object] = {}
    if profile is not None:
        overrides["profiles"] = _split(profile, ",")
    if modes is not None:
        overrides["modes"] = _split(modes, ",")
    if clients is not None:
        overrides["clients"] = _split(clients, ",")
    if commands is not None:
        overrides["commands"] = _split(commands, ";")
    for key, value in (("iterations", iterations), ("warmup", warmup),
                       ("baseline", baseline), ("timeout_s", timeout),
                       ("netconf_framing", _listed(netconf[0])),
                       ("netconf_reply_bytes", _listed(netconf[1])),
                       ("tunnel_bulk_sizes", _listed(tunnel_bulk_sizes))):
        if value is not None:
            overrides[key] = value
    try:
        return Plan.model_validate({**plan.model_dump(), **overrides})
    except ValidationError as exc:
        raise _fail(f"invalid option: {exc}", EXIT_USAGE) from exc


def _listed(option: str | None) -> list[str] | None:
    """A comma-separated option as a list (validated by the plan model)."""
    return None if option is None else _split(option, ",")


@app.command()
def run(
    profile: Annotated[str | None, typer.Option(
        help="netem profile(s) to apply, comma-separated (see `profiles`); default: the "
             "plan's, else local")] = None,
    modes: Annotated[str | None, typer.Option(
        help="comma-separated mode names (see `modes`), or 'all'; default: the plan's, else "
             "the six original modes")] = None,
    clients: Annotated[str | None, typer.Option(
        help="comma-separated clients: 'floor' (asyncssh, httpx, python-ssl), 'all', or "
             "library names (paramiko, openssh, netmiko, scrapli, requests, ncclient, "
             "scrapli-netconf); default: floor")
    ] = None,
    iterations: Annotated[int | None, typer.Option(
        min=1, help="measured iterations per mode (default 20)")] = None,
    warmup: Annotated[int | None, typer.Option(
        min=0, help="discarded iterations per mode (default 2)")] = None,
    commands: Annotated[str | None, typer.Option(
        help="semicolon-separated CLI commands per iteration; default: 5 show commands")] = None,
    plan: Annotated[str | None, typer.Option(
        help="plan file (YAML) or built-in plan: default, smoke, nightly, netconf-sweep, "
             "latency-sweep")] = None,
    targets: Annotated[Path | None, typer.Option(
        help="inventory YAML of real devices to measure instead of the emulator (no netem)")
    ] = None,
    baseline: Annotated[str | None, typer.Option(
        help="mode (or mode@client) the speedup is computed against; default ssh/pty-fresh")
    ] = None,
    run_id: Annotated[str | None, typer.Option(
        help="default: UTC start time + random; suffixed with -<profile> or -<target> when "
             "the run has several")] = None,
    no_sinks: Annotated[bool, typer.Option(
        "--no-sinks", help="write results files only; skip InfluxDB, Pushgateway, replay")
    ] = False,
    netem: Annotated[NetemControl, typer.Option(
        help="'none' skips the netem API and records engine 'none', profile 'local'")
    ] = NetemControl.API,
    timeout: Annotated[float | None, typer.Option(
        min=1.0, help="seconds allowed per iteration (default 120)")] = None,
    netconf_framing: Annotated[str | None, typer.Option(
        help="NETCONF modes: '1.1' (chunked, default) or '1.0' (end-of-message); "
             "comma-separated to measure each")] = None,
    netconf_reply_bytes: Annotated[str | None, typer.Option(
        help="NETCONF modes: size of each <get> reply in bytes (default 1024); "
             "comma-separated to measure each")] = None,
    wait_for_lab: Annotated[float, typer.Option(
        min=0.0, help="seconds to wait for another run to free the lab (one run at a time); "
                      "default: refuse at once")] = 0.0,
    tunnel_bulk_sizes: Annotated[str | None, typer.Option(
        help="tunnel/bulk and https/bulk downloads, comma-separated: 10M (default), "
             "100M, 1G")] = None,
) -> None:
    """Apply a netem profile, measure each mode, write results and feed the sinks."""
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    settings = Settings()
    try:
        base_plan = load_plan(plan)
    except PlanError as exc:
        raise _fail(str(exc), EXIT_USAGE) from exc
    merged = _merge_plan(base_plan, profile, modes, clients, iterations, warmup, commands,
                         baseline, timeout, (netconf_framing, netconf_reply_bytes),
                         tunnel_bulk_sizes)
    try:
        selection = select_modes(merged.mode_names(), merged.client_names())
    except KeyError as exc:
        raise _fail(str(exc.args[0]), EXIT_USAGE) from exc
    selection = Selection(
        sweep_bulk_sizes(
            sweep_netconf(selection.modes, merged.netconf_framings(),
                          merged.netconf_reply_sizes()),
            merged.tunnel_bulk_sizes),
        selection.not_applicable,
    )
    if netem is NetemControl.NONE and merged.profiles != ["local"] and targets is None:
        raise _fail("--netem none measures without impairment; use --profile local",
                    EXIT_USAGE)
    jobs = _jobs(settings, run_id or new_run_id(datetime.now(UTC)), merged.profiles, targets)

    if not no_sinks:
        print_deliveries(replay_spool(settings))
    references: dict[SeriesKey, tuple[str, float]] = {}
    all_ok = True
    with _lab_lock(settings, netem, targets, jobs[0].sweep, wait_for_lab) as lock:
        for job in jobs:
            result = _run_job(settings, job, netem, selection, merged, no_sinks, references,
                              lock)
            references.update(local_references(result))
            all_ok = all_ok and result.ok
        if lock is not None and lock.lost is not None:
            err_console.print(f"[red]error:[/red] the lab's run lock was lost while this run "
                              f"measured: {lock.lost}")
            all_ok = False
    if not all_ok:
        raise typer.Exit(EXIT_MODE_FAILED)


@app.command()
def profiles(
    output: Annotated[OutputFormat, typer.Option(help="yaml prints netem's profile fields")]
    = OutputFormat.TABLE,
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
def replay() -> None:
    """Deliver payloads spooled while InfluxDB or the Pushgateway was down."""
    deliveries = replay_spool(Settings())
    if not deliveries:
        console.print("spool is empty")
    print_deliveries(deliveries)
    if not all(delivery.delivered for delivery in deliveries):
        raise typer.Exit(EXIT_MODE_FAILED)


@app.command(name="modes")
def list_modes(
    n_commands: Annotated[int, typer.Option(min=1, help="commands per iteration")] = 5,
) -> None:
    """List the modes with their round-trip bounds."""
    console.print(modes_table(ALL_MODES, n_commands))


@app.command()
def report(
    run_ids: Annotated[list[str], typer.Argument(
        help="run ids or run id prefixes under $RESULTS_DIR (a plan run with several "
             "profiles writes <run-id>-<profile>)")],
) -> None:
    """p50 against the round-trip bound, harness overhead, run wall time against its
    RTT-bound minimum (what `make bench-matrix` prints)."""
    runs = load_runs(Settings().results_dir, run_ids)
    if not runs:
        raise _fail(f"no results.json for {', '.join(run_ids)}", EXIT_USAGE)
    console.print(report_table(runs))
    console.print(runs_table(runs))
