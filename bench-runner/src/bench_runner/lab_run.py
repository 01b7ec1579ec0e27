"""A benchmark run on the lab: what ``bench-runner run`` does once its options are parsed.

A run is one job per profile (or per real device of an inventory). Runs that set netem's
profile hold the lab's run lock from before the first change to the end; each job applies
its profile under it, measures every mode with the profile guarded, writes its files and
feeds the sinks. The profile that was active before the run is applied back at the end,
after a failure too, so a device tried by hand afterwards is not still delayed.

Nothing here prints: what a user sees goes through the ``Presenter`` the caller passes (the
console's, for the command line), and the run's results are returned.
"""

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, closing, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import httpx

from bench_runner.lab_info import device_version, runner_info
from bench_runner.lab_lock import LabLock, run_owner
from bench_runner.modes import (
    MODES_BY_NAME,
    Mode,
    Relay,
    Selection,
    Target,
    client_versions,
    select_modes,
    sweep_bulk_sizes,
    sweep_fleet,
    sweep_netconf,
    sweep_restconf_encodings,
)
from bench_runner.netem import LabBusyError, NetemClient, NetemError, NetemState
from bench_runner.outputs import write_outputs
from bench_runner.plan import Plan, PlanError
from bench_runner.profile_guard import Guard, ProfileGuard, ProfileGuards
from bench_runner.results import (
    LOCAL_PROFILE,
    LabInfo,
    ModeRun,
    NotApplicable,
    ProfileInfo,
    RelayInfo,
    RunResult,
    SeriesKey,
    TargetInfo,
    apply_baseline,
    apply_floor_ratio,
    apply_rtt_model,
    local_references,
    write_results,
)
from bench_runner.runner import LanPlan, RunPlan, run_mode
from bench_runner.settings import Settings
from bench_runner.sinks.delivery import Delivery
from bench_runner.sinks.publish import publish_run
from bench_runner.sinks.replay import replay_spool
from bench_runner.targets import Inventory, load_inventory
from bench_runner.verdicts.judge import history_for, judge_run, summary_line


class Presenter(Protocol):
    """What a run tells its user, as it happens."""

    def note(self, message: str) -> None: ...

    def warn(self, message: str) -> None: ...

    def error(self, message: str) -> None: ...

    def busy(self, message: str) -> AbstractContextManager[object]:
        """Shown while the block runs (applying a profile)."""
        ...

    def measuring(
        self, modes: Sequence[Mode], iterations: Callable[[Mode], int | None]
    ) -> AbstractContextManager[Callable[[Mode], Callable[[bool], None]]]:
        """While the modes run: the callback each mode reports its iterations to
        (``iterations``: how many a mode runs, None when its precision decides)."""
        ...

    def job_done(self, result: RunResult, verdicts: str, files: Path) -> None:
        """A job's results (written to ``files``, as the user's host names it)."""
        ...

    def deliveries(self, deliveries: Sequence[Delivery]) -> None: ...


@dataclass(frozen=True)
class RunOutcome:
    results: list[RunResult]
    """One per job, in the order they ran."""

    @property
    def ok(self) -> bool:
        """Every mode of every job was ok, and the lab stayed the run's."""
        return bool(self.results) and all(result.ok for result in self.results)


class RunError(Exception):
    """A run that cannot start or go on; the message says why."""


class UsageError(RunError):
    """The run cannot be made as asked: options, plan, inventory or credentials."""


class LabUnreachableError(RunError):
    """netem did not answer, or refused the profile."""


class LabInUseError(RunError):
    """Another run holds the lab: one run at a time."""


@dataclass(frozen=True)
class RunRequest:
    """A ``bench-runner run``, its options parsed."""

    plan: Plan
    """The plan with the command line's overrides."""
    run_id: str
    netem: bool
    """False for ``--netem none``: measure without impairment, never call netem."""
    targets: Path | None
    """An inventory measured instead of the lab's device: real devices (netem not used), or
    the lab's emulated fleet (``lab: true``, from ``bench-runner inventory``)."""
    publish: bool
    """Replay the spool first, feed InfluxDB and the Pushgateway (False: files only)."""
    wait_for_lab_s: float
    argv: list[str]
    """The command line, recorded in the manifest."""


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
    relayed: bool = False
    """The job of the relayed modes (jump host, head-end): ``profile`` is the WAN hop's, the
    plan's ``lan_profile`` the device's; the direct modes run in a job of their own."""


@dataclass
class Lab:
    """netem as a run drives it: every change under the run lock this run holds."""

    netem: NetemClient
    lock: LabLock
    url: str
    presenter: Presenter
    applied: NetemState | None = None
    """What this run applied last: the next device of a fleet under the same profile
    measures under it as it stands, no new generation in between."""

    def apply(self, profile: str) -> NetemState:
        try:
            if self.applied is not None and self.applied.profile.name == profile:
                now = self.netem.current()
                same = (now.instance, now.generation) == (
                    self.applied.instance,
                    self.applied.generation,
                )
                if same:
                    return now
            with self.presenter.busy(f"applying netem profile {profile!r}"):
                self.applied = self.netem.apply(profile, self.lock.lease)
                return self.applied
        except LabBusyError as exc:
            raise LabInUseError(f"the lab is not this run's: {exc}") from exc
        except (NetemError, httpx.HTTPError) as exc:
            raise LabUnreachableError(f"netem at {self.url}: {exc}") from exc


def run(settings: Settings, request: RunRequest, presenter: Presenter) -> RunOutcome:
    """Measure every job of ``request``; its results, and whether the lab stayed the run's."""
    selection = select(request.plan)
    inventory = _inventory(request.targets)
    on_lab = inventory is None or inventory.lab
    if not request.netem and on_lab and request.plan.profiles != [LOCAL_PROFILE]:
        raise UsageError("--netem none measures without impairment; use --profile local")
    # The run drives netem: under the lab's run lock, the profile restored at the end.
    sets_profile = request.netem and on_lab
    if sets_profile and not settings.netem_url:
        raise UsageError("NETEM_URL is empty; set it, or pass --netem none to run without netem")
    jobs = plan_jobs(settings, request, inventory, sets_profile)
    if request.publish:
        presenter.deliveries(replay_spool(settings))
    references: dict[SeriesKey, tuple[str, float]] = {}
    results: list[RunResult] = []
    relayed = any(job.relayed for job in jobs)
    if relayed and sets_profile and not settings.netem_wan_url:
        raise UsageError("NETEM_WAN_URL is empty: the relayed modes need the remote site's netem")
    with ExitStack() as held:
        lab = held.enter_context(
            held_lab(
                settings.netem_url, request.wait_for_lab_s, jobs[0].sweep, sets_profile, presenter
            )
        )
        wan = held.enter_context(
            held_lab(
                settings.netem_wan_url,
                request.wait_for_lab_s,
                jobs[0].sweep,
                sets_profile and relayed,
                presenter,
                "netem-wan",
            )
        )
        for job in jobs:
            result = _run_job(settings, request, job, selection, lab, wan, references, presenter)
            references.update(local_references(result))
            results.append(result)
        for netem_held in (lab, wan):
            if netem_held is not None and netem_held.lock.lost is not None:
                presenter.error(
                    f"the run lock of netem at {netem_held.url} was lost while this run "
                    f"measured: {netem_held.lock.lost}"
                )
                return RunOutcome([])
    return RunOutcome(results)


def select(plan: Plan) -> Selection:
    """The plan's measurements: its modes with its clients, the NETCONF modes once per
    framing and reply size, the fleet modes once per host count and repeats, the RESTCONF
    reads once per encoding, the bulk downloads once per size."""
    try:
        selection = select_modes(plan.mode_names(), plan.client_names())
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from exc
    modes = sweep_netconf(selection.modes, plan.netconf_framings(), plan.netconf_reply_sizes())
    modes = sweep_fleet(modes, plan.fleet_host_counts(), plan.fleet_repeat_counts())
    modes = sweep_restconf_encodings(modes, plan.restconf_encodings())
    return Selection(sweep_bulk_sizes(modes, plan.tunnel_bulk_sizes), selection.not_applicable)


def _inventory(path: Path | None) -> Inventory | None:
    if path is None:
        return None
    try:
        return load_inventory(path)
    except PlanError as exc:
        raise UsageError(str(exc)) from exc


def plan_jobs(
    settings: Settings, request: RunRequest, inventory: Inventory | None, sets_profile: bool
) -> list[Job]:
    """One job per profile and device: the lab's device, or each device of the inventory
    (under every profile when they are the lab's, without netem when they are real). Run
    ids get the profile's and the device's name when there are several."""
    run_id = request.run_id
    devices: list[tuple[Target, TargetInfo, str | None]]
    if inventory is None:
        target = lab_target(settings)
        devices = [
            (
                target,
                TargetInfo(
                    host=target.host,
                    ssh_port=target.ssh_port,
                    https_port=target.https_port,
                    netconf_port=target.netconf_port,
                    h3_port=target.h3_port,
                    gnmi_port=target.gnmi_port,
                ),
                settings.device_metrics_url,
            )
        ]
    else:
        try:
            devices = [
                (
                    spec.target(inventory.relays),
                    TargetInfo(
                        host=spec.host,
                        ssh_port=spec.ssh_port,
                        https_port=spec.https_port,
                        netconf_port=spec.netconf_port,
                        h3_port=spec.h3_port,
                        gnmi_port=spec.gnmi_port,
                        name=spec.name,
                        platform=spec.platform,
                    ),
                    spec.metrics_url,
                )
                for spec in inventory.targets
            ]
        except PlanError as exc:
            raise UsageError(str(exc)) from exc
    profiles: list[str | None] = list(request.plan.profiles)
    if not sets_profile:
        # --netem none on the lab: unimpaired; real devices: whatever their network has.
        on_lab = inventory is None or inventory.lab
        profiles = [LOCAL_PROFILE] if on_lab else [None]
    paths = _paths(select(request.plan).modes)
    if True in paths and (inventory is None or inventory.lab):
        relay = _lab_relay(settings)
        devices = [(replace(target, relay=relay), info, url) for target, info, url in devices]
    elif True in paths:
        unrelayed = [info.name or target.host for target, info, _ in devices if not target.relay]
        if unrelayed:
            raise UsageError(
                f"the relayed modes need a relay for every target; none for {', '.join(unrelayed)}"
            )
    jobs = []
    for profile in profiles:
        for target, info, metrics_url in devices:
            for relayed in paths:
                parts = [run_id]
                if len(profiles) > 1 and profile is not None:
                    parts.append(profile)
                if len(devices) > 1 and info.name:
                    parts.append(info.name)
                if relayed and len(paths) > 1:
                    parts.append("relayed")
                jobs.append(
                    Job("-".join(parts), run_id, target, info, metrics_url, profile, relayed)
                )
    return jobs


def _paths(modes: Sequence[Mode]) -> list[bool]:
    """Whether the run has direct modes, relayed ones, or both (False: direct, first)."""
    return sorted({mode.relayed for mode in modes})


def _lab_relay(settings: Settings) -> Relay:
    """The lab's remote site: its jump host and head-end, each with its own credentials."""
    if not settings.jump_username or settings.jump_password is None:
        raise UsageError("JUMP_USERNAME and JUMP_PASSWORD must be set for the jump/* modes")
    if not settings.headend_username or settings.headend_password is None:
        raise UsageError("HEADEND_USERNAME and HEADEND_PASSWORD must be set for the proxy/* modes")
    return Relay(
        jump_host=settings.jump_host,
        jump_port=settings.jump_ssh_port,
        jump_username=settings.jump_username,
        jump_password=settings.jump_password.get_secret_value(),
        headend_host=settings.headend_host,
        headend_https_port=settings.headend_https_port,
        headend_username=settings.headend_username,
        headend_password=settings.headend_password.get_secret_value(),
        headend_h3_port=settings.headend_h3_port,
    )


def lab_target(settings: Settings) -> Target:
    """The lab's device as the settings name it, with its credentials."""
    if not settings.device_username or settings.device_password is None:
        raise UsageError("DEVICE_USERNAME and DEVICE_PASSWORD must be set")
    return Target(
        host=settings.device_host,
        ssh_port=settings.device_ssh_port,
        https_port=settings.device_https_port,
        netconf_port=settings.device_netconf_port,
        h3_port=settings.device_h3_port,
        gnmi_port=settings.device_gnmi_port,
        username=settings.device_username,
        password=settings.device_password.get_secret_value(),
    )


@contextmanager
def held_lab(
    netem_url: str,
    wait_for_lab_s: float,
    sweep: str,
    sets_profile: bool,
    presenter: Presenter,
    label: str = "netem",
) -> Iterator[Lab | None]:
    """The netem at ``netem_url`` held for a run that sets its profile (None for ``--netem
    none``, real devices, and the WAN's netem of a run without relayed modes): its run lock
    taken, the profile it had read before the first change and applied back at the end,
    whatever happened in between."""
    if not sets_profile:
        yield None
        return
    lock = LabLock(
        lambda: NetemClient(netem_url),
        run_owner(sweep),
        wait_s=wait_for_lab_s,
        on_wait=lambda holder: presenter.warn(f"waiting for the lab: {holder}"),
    )
    try:
        lock.__enter__()
    except LabBusyError as exc:
        raise LabInUseError(
            f"the lab is busy, one run at a time: {exc} (wait with --wait-for-lab SECONDS)"
        ) from exc
    except (NetemError, httpx.HTTPError) as exc:
        raise LabUnreachableError(f"netem at {netem_url}: {exc}") from exc
    try:
        with closing(NetemClient(netem_url)) as netem:
            try:
                before = netem.current()
            except (NetemError, httpx.HTTPError) as exc:
                raise LabUnreachableError(f"netem at {netem_url}: {exc}") from exc
            try:
                yield Lab(netem, lock, netem_url, presenter)
            finally:
                _restore_profile(netem, before, lock, presenter, label)
    finally:
        lock.__exit__(None, None, None)


def _restore_profile(
    netem: NetemClient, before: NetemState, lock: LabLock, presenter: Presenter, label: str
) -> None:
    """Apply the profile of before the run back, under the lease; say what became of it."""
    name = before.profile.name
    try:
        if netem.current().profile == before.profile:
            presenter.note(f"{label}: profile {name!r} kept, as it was before this run")
            return
        netem.restore(before.profile, lock.refresh())
    except (NetemError, httpx.HTTPError) as exc:
        presenter.warn(f"{label}: profile {name!r}, active before this run, not restored: {exc}")
        return
    presenter.note(f"{label}: profile {name!r} restored, as it was before this run")


def _run_job(
    settings: Settings,
    request: RunRequest,
    job: Job,
    selection: Selection,
    lab: Lab | None,
    wan: Lab | None,
    references: dict[SeriesKey, tuple[str, float]],
    presenter: Presenter,
) -> RunResult:
    """Measure one job, write its files, feed the sinks. ``references`` are the sweep's
    p50s at ``local`` so far, for the round-trip model."""
    plan = request.plan
    started_at = datetime.now(UTC)
    modes = [mode for mode in selection.modes if mode.relayed == job.relayed]
    lan_state = None
    if job.relayed:
        # The WAN hop on the remote site's netem, the LAN hop on the device's.
        netem_state = wan.apply(job.profile) if wan is not None and job.profile else None
        lan_state = lab.apply(plan.lan_profile) if lab is not None and job.profile else None
    else:
        netem_state = lab.apply(job.profile) if lab is not None and job.profile else None
    profile_info = _profile_info(job, netem_state)
    if job.metrics_url:
        device = device_version(job.metrics_url)
    else:
        device = {"unavailable": "no metrics URL for this target"}
    if "unavailable" in device:
        presenter.warn(f"device /version: {device['unavailable']}")

    run_plan = RunPlan(
        tuple(plan.commands),
        plan.stopping_rule(),
        plan.warmup,
        plan.timeout_s,
        rtt_gate=job.profile is not None,
        device_metrics_url=job.metrics_url,
        reference_port=_reference_port(job),
        configured_jitter_ms=profile_info.jitter_ms,
        configured_loss_pct=profile_info.loss_pct,
        bulk_iterations=plan.tunnel_bulk_iterations,
        relay_reference_port=settings.netem_wan_reference_port if job.relayed else None,
        lan=LanPlan(plan.lan_profile, lan_state.profile.rtt_ms, lan_state.profile.jitter_ms)
        if lan_state is not None
        else None,
    )
    with ExitStack() as clients:
        guards = [
            ProfileGuard(
                clients.enter_context(closing(NetemClient(url))),
                state.profile.name,
                state.instance,
                state.generation,
            )
            for url, state in (
                (settings.netem_wan_url if job.relayed else settings.netem_url, netem_state),
                (settings.netem_url, lan_state),
            )
            if state is not None
        ]
        mode_runs = asyncio.run(
            _measure(
                modes,
                job.target,
                run_plan,
                profile_info.rtt_ms,
                ProfileGuards(guards) if guards else None,
                presenter,
            )
        )
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
        not_applicable=[
            NotApplicable(mode=entry.mode, client=entry.client, reason=entry.reason)
            for entry in selection.not_applicable
        ],
        plan=plan.name,
        relay=_relay_info(job, lan_state),
    )
    # At `local` the reference is the run itself: its prediction is its own p50.
    apply_rtt_model(result.modes, {**references, **local_references(result)})
    judge_run(result, history_for(result, settings.results_dir, plan.verdicts), plan.verdicts)
    path = write_results(result, settings.results_dir)
    write_outputs(
        result,
        mode_runs,
        settings.results_dir,
        request.argv,
        client_versions(),
        settings.lab_engine,
    )
    presenter.job_done(
        result, summary_line(result, plan.verdicts), settings.shown_path(path.parent)
    )
    if request.publish:
        presenter.deliveries(publish_run(settings, result, mode_runs))
    return result


def _relay_info(job: Job, lan_state: NetemState | None) -> RelayInfo | None:
    """A relayed job's remote site, with the LAN hop's profile; None for a direct job."""
    if not job.relayed:
        return None
    relay = job.target.via()
    return RelayInfo(
        jump_host=relay.jump_host,
        jump_port=relay.jump_port,
        headend=relay.headend_host,
        headend_https_port=relay.headend_https_port,
        headend_h3_port=relay.headend_h3_port,
        lan_profile=_profile_info(job, lan_state),
    )


def applied_profile(state: NetemState) -> ProfileInfo:
    """The profile netem applied, as results record it."""
    profile = state.profile
    return ProfileInfo(
        name=profile.name,
        rtt_ms=profile.rtt_ms,
        jitter_ms=profile.jitter_ms,
        keep_order=profile.keep_order,
        loss_pct=profile.loss_pct,
        rate_mbit=profile.rate_mbit,
        source=profile.source,
        engine=state.engine,
        engine_reason=state.engine_reason,
        applied_at=state.applied_at,
        readback=state.readback,
    )


def _profile_info(job: Job, state: NetemState | None) -> ProfileInfo:
    """The job's profile: the one netem applied (``state``), or none at all: a real target's
    network, or the lab measured with ``--netem none``."""
    if state is not None:
        return applied_profile(state)
    if job.profile is None:
        target = job.target_info.name or job.target.host
        name, reason = (
            "unmanaged",
            f"real target {target} from --targets: its latency is whatever the network "
            "has, netem is not involved",
        )
    else:
        name, reason = LOCAL_PROFILE, "netem control disabled by --netem none"
    return ProfileInfo(
        name=name,
        rtt_ms=0.0,
        jitter_ms=0.0,
        loss_pct=0.0,
        rate_mbit=0.0,
        source=None,
        engine="none",
        engine_reason=reason,
        applied_at=None,
        readback=None,
    )


def _reference_port(job: Job) -> int | None:
    """The device metrics port, when it is on the target host (netem never impairs it)."""
    if job.profile is None or not job.metrics_url:
        return None
    url = httpx.URL(job.metrics_url)
    if url.host != job.target.host:
        return None
    return url.port or (443 if url.scheme == "https" else 80)


async def _measure(
    modes: list[Mode],
    target: Target,
    plan: RunPlan,
    configured_rtt_ms: float,
    guard: Guard | None,
    presenter: Presenter,
) -> list[ModeRun]:
    def iterations(mode: Mode) -> int | None:
        stopping = plan.for_mode(mode).stopping
        if stopping.fixed_iterations is None:
            return None
        return plan.warmup + stopping.fixed_iterations

    with presenter.measuring(modes, iterations) as on_iteration:
        return [
            await run_mode(mode, target, plan, configured_rtt_ms, on_iteration(mode), guard)
            for mode in modes
        ]
