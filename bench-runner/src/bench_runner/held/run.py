"""A held-connections sweep on the lab: the run lock taken and the profile applied, the RTT
verified on the transport's port, then each step (hold.py) in ascending order, netem's
profile checked unchanged after each; the sweep stops at the first step that could not
hold all its connections, and names the limit its errors point to. The document is written
whatever happened; only the steps that held are published."""

import asyncio
import resource
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx

from bench_runner.held.hold import hold_step, warm_up
from bench_runner.held.limits import HeldLimit, limit_found
from bench_runner.held.plan import HoldPlan
from bench_runner.held.publish import publish_hold
from bench_runner.held.results import HoldResult, VerifiedRtt, write_hold
from bench_runner.held.step import HeldStep
from bench_runner.held.summary import summarize_step
from bench_runner.held.transports import HeldTransport, held_transport
from bench_runner.lab_info import runner_info
from bench_runner.lab_run import Presenter, lab_target
from bench_runner.lab_step import LabStep, lab_step, require_netem
from bench_runner.netem import NetemError
from bench_runner.results import LabInfo, ProfileInfo
from bench_runner.runner import RttVerification
from bench_runner.settings import Settings


@dataclass(frozen=True)
class HoldRequest:
    plan: HoldPlan
    profile: str
    run_id: str
    publish: bool = True
    wait_for_lab_s: float = 0.0


def _unchanged(lab: LabStep) -> bool:
    try:
        return lab.unchanged()
    except (NetemError, httpx.HTTPError):
        return False


def _sweep(
    settings: Settings,
    request: HoldRequest,
    transport: HeldTransport,
    lab: LabStep,
    presenter: Presenter,
) -> tuple[list[HeldStep], HeldLimit | None]:
    steps: list[HeldStep] = []
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    for connections in request.plan.connections:
        presenter.note(f"{request.plan.transport}: holding {connections} connections")
        measured = asyncio.run(
            hold_step(transport, connections, request.plan, settings.device_metrics_url)
        )
        step = summarize_step(measured, _unchanged(lab))
        steps.append(step)
        errors = measured.open_errors + measured.operation_errors
        if not step.ok:
            return steps, limit_found(connections, errors, nofile)
    return steps, None


def run_hold(settings: Settings, request: HoldRequest, presenter: Presenter) -> HoldResult:
    """Run the sweep, write its document, publish the steps that held; the document."""
    require_netem(settings, "a hold")
    target = lab_target(settings)
    transport = held_transport(request.plan.transport, target)
    started_at = datetime.now(UTC)
    steps: list[HeldStep] = []
    limit: HeldLimit | None = None
    error: str | None = None
    with lab_step(
        settings, request.profile, request.wait_for_lab_s, request.run_id, presenter
    ) as lab:
        profile = lab.profile
        gate = asyncio.run(lab.verify_rtt(target.host, transport.port))
        if not gate.check.passed:
            error = f"RTT not verified, nothing held: {gate.check.reason or gate.error}"
        elif (failed := asyncio.run(warm_up(transport))) is not None:
            error = f"the warm-up connection failed, nothing held: {failed}"
        else:
            steps, limit = _sweep(settings, request, transport, lab, presenter)
            if steps and not steps[-1].ok:
                error = f"stopped at {steps[-1].connections} connections: {steps[-1].error}"
    result = _result(settings, request, transport, started_at, profile, gate, steps, limit, error)
    path = write_hold(result, settings.results_dir)
    presenter.note(f"results: {settings.shown_path(path)}")
    if request.publish and any(step.ok for step in result.steps):
        presenter.deliveries(publish_hold(settings, result))
    return result


def _result(
    settings: Settings,
    request: HoldRequest,
    transport: HeldTransport,
    started_at: datetime,
    profile: ProfileInfo,
    gate: RttVerification,
    steps: list[HeldStep],
    limit: HeldLimit | None,
    error: str | None,
) -> HoldResult:
    plan = request.plan
    return HoldResult(
        run_id=request.run_id,
        started_at=started_at,
        finished_at=datetime.now(UTC),
        lab=LabInfo(commit=settings.lab_commit, images=settings.lab_images),
        runner=runner_info(),
        profile=profile,
        transport=plan.transport,
        client=transport.client,
        client_version=transport.version(),
        operation=transport.operation,
        rtt=VerifiedRtt(
            port=transport.port,
            verified_rtt_ms=gate.verified_rtt_ms,
            check=gate.check,
        ),
        operations_per_connection=plan.operations_per_connection,
        duration_s=plan.duration_s,
        open_concurrency=plan.open_concurrency,
        nofile_limit=resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        steps=steps,
        limit=limit,
        ok=error is None,
        error=error,
    )
