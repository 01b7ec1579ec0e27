"""A fleet sweep's steps (pure): every profile x devices x workers asked for, in that order,
each one fleet job (run.py) under one sweep id.

A step with more workers than devices is skipped, not clamped: a tool never has more devices
busy than it has devices, so it would run as the step of ``workers = devices``, which the
sweep measures when that count is asked for, and a clamped copy would be a second,
differently named measurement of the same step. Skipped steps are listed in the summary.
"""

from dataclasses import dataclass

from bench_runner.fleet_job.job import FleetJobError


@dataclass(frozen=True)
class SweepStep:
    profile: str
    devices: int
    workers: int


@dataclass(frozen=True)
class SweepPlan:
    steps: tuple[SweepStep, ...]
    skipped: tuple[SweepStep, ...]
    """Asked for with more workers than devices: not run."""


def _distinct(name: str, values: tuple[int, ...]) -> tuple[int, ...]:
    if not values:
        raise FleetJobError(f"a sweep needs at least one {name} count")
    if any(value < 1 for value in values):
        raise FleetJobError(f"{name} counts must be at least 1, not {list(values)}")
    return tuple(sorted(set(values)))


def plan_sweep(
    devices: tuple[int, ...], workers: tuple[int, ...], profiles: tuple[str, ...]
) -> SweepPlan:
    """The steps in the order they run: per profile, fewest devices first, then fewest
    workers; FleetJobError when no step is left to run."""
    if not profiles:
        raise FleetJobError("a sweep needs at least one profile")
    steps: list[SweepStep] = []
    skipped: list[SweepStep] = []
    for profile in dict.fromkeys(profiles):
        for device_count in _distinct("devices", devices):
            for worker_count in _distinct("workers", workers):
                step = SweepStep(profile, device_count, worker_count)
                (skipped if worker_count > device_count else steps).append(step)
    if not steps:
        raise FleetJobError("every step has more workers than devices: nothing to run")
    return SweepPlan(tuple(steps), tuple(skipped))


def step_run_id(sweep_id: str, step: SweepStep) -> str:
    """``<sweep>-<profile>-d<devices>-w<workers>``: the step's results directory."""
    return f"{sweep_id}-{step.profile}-d{step.devices}-w{step.workers}"
