"""The `bench-runner` command line."""

import asyncio
import logging
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated

import httpx
import typer
import yaml

from bench_runner.console import (
    ModeProgress,
    console,
    err_console,
    modes_table,
    print_deliveries,
    print_failures,
    profiles_table,
    summary_table,
)
from bench_runner.lab_info import device_version, runner_info
from bench_runner.modes import ALL_MODES, Mode, Target, select_modes
from bench_runner.netem import NetemClient, NetemError, NetemState
from bench_runner.results import (
    LabInfo,
    ProfileInfo,
    RunResult,
    TargetInfo,
    new_run_id,
    write_results,
)
from bench_runner.runner import ModeRun, RunPlan, run_mode
from bench_runner.settings import Settings
from bench_runner.sinks.publish import publish_run
from bench_runner.sinks.replay import replay_spool

DEFAULT_COMMANDS = (
    "show version",
    "show clock",
    "show ip interface brief",
    "show inventory",
    "show running-config",
)
EXIT_MODE_FAILED = 1
EXIT_USAGE = 2
EXIT_LAB_UNREACHABLE = 3

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


def _apply_profile(settings: Settings, netem: NetemControl, profile: str) -> ProfileInfo:
    if netem is NetemControl.NONE:
        if profile != "local":
            raise _fail("--netem none measures without impairment; use --profile local",
                        EXIT_USAGE)
        return _profile_without_netem()
    if not settings.netem_url:
        raise _fail("NETEM_URL is empty; set it, or pass --netem none to run without netem",
                    EXIT_USAGE)
    client = NetemClient(settings.netem_url)
    try:
        with console.status(f"applying netem profile {profile!r}"):
            return _profile_from_netem(client.apply(profile))
    except (NetemError, httpx.HTTPError) as exc:
        raise _fail(f"netem at {settings.netem_url}: {exc}", EXIT_LAB_UNREACHABLE) from exc
    finally:
        client.close()


async def _measure(
    modes: list[Mode], target: Target, plan: RunPlan, configured_rtt_ms: float
) -> list[ModeRun]:
    progress = ModeProgress(modes, plan.warmup + plan.iterations)
    with progress.progress:
        return [
            await run_mode(mode, target, plan, configured_rtt_ms, progress.callback(mode))
            for mode in modes
        ]


@app.command()
def run(
    profile: Annotated[str, typer.Option(help="netem profile to apply (see `profiles`)")] = "local",
    modes: Annotated[str | None, typer.Option(
        help="comma-separated mode names (see `modes`); default: all")] = None,
    iterations: Annotated[int, typer.Option(min=1, help="measured iterations per mode")] = 20,
    warmup: Annotated[int, typer.Option(min=0, help="discarded iterations per mode")] = 2,
    commands: Annotated[str | None, typer.Option(
        help="semicolon-separated CLI commands per iteration; default: 5 show commands")] = None,
    run_id: Annotated[str | None, typer.Option(help="default: UTC start time + random")] = None,
    no_sinks: Annotated[bool, typer.Option(
        "--no-sinks", help="write results.json only; skip InfluxDB, Pushgateway, replay")
    ] = False,
    netem: Annotated[NetemControl, typer.Option(
        help="'none' skips the netem API and records engine 'none', profile 'local'")
    ] = NetemControl.API,
    timeout: Annotated[float, typer.Option(min=1.0, help="seconds allowed per iteration")] = 120.0,
) -> None:
    """Apply a netem profile, measure each mode, write results.json and feed the sinks."""
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    settings = Settings()
    target = _target(settings)
    try:
        selected = select_modes(_split(modes, ","))
    except KeyError as exc:
        raise _fail(str(exc.args[0]), EXIT_USAGE) from exc
    command_list = tuple(_split(commands, ";") or DEFAULT_COMMANDS)
    started_at = datetime.now(UTC)
    run_id = run_id or new_run_id(started_at)

    if not no_sinks:
        print_deliveries(replay_spool(settings))
    profile_info = _apply_profile(settings, netem, profile)
    device = device_version(settings.device_metrics_url)
    if "unavailable" in device:
        err_console.print(f"[yellow]WARNING device /version: {device['unavailable']}")

    plan = RunPlan(command_list, iterations, warmup, timeout)
    mode_runs = asyncio.run(_measure(selected, target, plan, profile_info.rtt_ms))
    result = RunResult(
        run_id=run_id,
        started_at=started_at,
        finished_at=datetime.now(UTC),
        lab=LabInfo(commit=settings.lab_commit, images=settings.lab_images),
        runner=runner_info(),
        device=device,
        target=TargetInfo(host=target.host, ssh_port=target.ssh_port, https_port=target.https_port),
        profile=profile_info,
        modes=[mode_run.result for mode_run in mode_runs],
        ok=all(mode_run.result.ok for mode_run in mode_runs),
    )
    path = write_results(result, settings.results_dir)
    console.print(summary_table(result))
    print_failures(result)
    console.print(f"results: {path}")
    if not no_sinks:
        print_deliveries(publish_run(settings, result, mode_runs))
    if not result.ok:
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
    n_commands: Annotated[int, typer.Option(min=1, help="commands per iteration")]
    = len(DEFAULT_COMMANDS),
) -> None:
    """List the modes with their round-trip bounds."""
    console.print(modes_table(ALL_MODES, n_commands))
