"""A fleet sweep on the lab: each step of its plan (sweep.py) run as one fleet job step
(run.py, its own document and point, tagged with the sweep), then the sweep's summary written
and its knees published.

The fleet is checked large enough for the largest step before anything runs. When the lab
stops a step (another run holds it, netem is gone), the sweep stops there: its summary is
written with the steps that ran and why it stopped, and the error is raised.
"""

from dataclasses import dataclass, replace
from datetime import UTC, datetime

from bench_runner.fleet_job.client_cores import available_cores
from bench_runner.fleet_job.job import FleetJob
from bench_runner.fleet_job.publish import publish_fleet_knees
from bench_runner.fleet_job.results import FleetJobResult
from bench_runner.fleet_job.run import FleetJobRequest, fleet_hosts, run_fleet_job
from bench_runner.fleet_job.sweep import SweepPlan, plan_sweep, step_run_id
from bench_runner.fleet_job.sweep_results import (
    FleetSweepResult,
    fleet_sweep,
    write_fleet_sweep,
)
from bench_runner.lab_info import runner_info
from bench_runner.lab_run import Presenter, RunError
from bench_runner.results import LabInfo
from bench_runner.settings import Settings


@dataclass(frozen=True)
class FleetSweepRequest:
    job: FleetJob
    """The step's tool, connection and operation; devices and workers come from the lists."""
    devices: tuple[int, ...]
    workers: tuple[int, ...]
    profiles: tuple[str, ...]
    sweep_id: str
    timeout_s: float
    publish: bool = True
    wait_for_lab_s: float = 0.0

    def plan(self) -> SweepPlan:
        return plan_sweep(self.devices, self.workers, self.profiles)


def run_fleet_sweep(
    settings: Settings, request: FleetSweepRequest, presenter: Presenter
) -> FleetSweepResult:
    """Run every step, write the summary, publish the knees when the sweep ran through."""
    plan = request.plan()
    fleet_hosts(settings, max(step.devices for step in plan.steps))
    for step in plan.skipped:
        presenter.note(
            f"skipped at {step.profile}: {step.workers} workers for {step.devices} devices "
            "(never more busy than there are devices)"
        )
    started_at = datetime.now(UTC)
    results: list[FleetJobResult] = []
    stopped: RunError | None = None
    for number, step in enumerate(plan.steps, start=1):
        presenter.note(
            f"step {number}/{len(plan.steps)}: {step.profile}, {step.devices} devices, "
            f"{step.workers} workers"
        )
        step_request = FleetJobRequest(
            job=replace(request.job, devices=step.devices, workers=step.workers),
            profile=step.profile,
            run_id=step_run_id(request.sweep_id, step),
            timeout_s=request.timeout_s,
            publish=request.publish,
            wait_for_lab_s=request.wait_for_lab_s,
            sweep=request.sweep_id,
        )
        try:
            results.append(run_fleet_job(settings, step_request, presenter))
        except RunError as exc:
            stopped = exc
            break
    sweep = fleet_sweep(
        request.sweep_id,
        request.job,
        (request.devices, request.workers, request.profiles),
        plan.skipped,
        results,
        (started_at, datetime.now(UTC)),
        (
            LabInfo(commit=settings.lab_commit, images=settings.lab_images),
            runner_info(),
            available_cores(),
        ),
        None if stopped is None else f"stopped at step {len(results) + 1}: {stopped}",
    )
    path = write_fleet_sweep(sweep, settings.results_dir)
    presenter.note(f"sweep summary: {settings.shown_path(path)}")
    if stopped is not None:
        raise stopped
    if request.publish:
        presenter.deliveries(publish_fleet_knees(settings, sweep))
    return sweep
