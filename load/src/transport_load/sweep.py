"""``make sweep``: a LoadTestShape stepping the users of one transport after another
(default 1, 10, 50, 100, 200, 500 each, ``--lab-step-seconds`` per step). A step's figures
are taken from the first whole second after its users were all running (ramp-up done) to
its end; results.py computes them and the knee. gnmi-stream's steps run once per sample
interval (``--lab-gnmi-intervals``), and results.py finds where its streams fall behind
(stream_capacity.py).

When the transport changes, every user of the previous one is stopped before the next one
starts: Locust keeps running users whose class a shape no longer names as long as the user
count allows (a step of 1 after a step of 200 kept one user of the old transport and none of
the new), so a step would claim users it does not have."""

import time
from collections import Counter
from typing import Any, NamedTuple

from locust import LoadTestShape
from locust.runners import MasterRunner

from transport_load.lab import STATE
from transport_load.state import StepWindow
from transport_load.transports import (
    GNMI_INTERVAL_MS,
    parse_intervals,
    parse_steps,
    parse_transports,
)
from transport_load.users import USER_CLASSES

STREAM_TRANSPORT = "gnmi-stream"


class PlannedStep(NamedTuple):
    transport: str
    interval_ms: float | None
    """gnmi-stream's sample interval (None for the other transports)."""
    users: int


def plan_steps(
    transports: list[str], intervals: list[float], steps: list[int]
) -> list[PlannedStep]:
    """Every transport's steps in turn; gnmi-stream's once per sample interval."""
    plan: list[PlannedStep] = []
    for transport in transports:
        for interval in intervals if transport == STREAM_TRANSPORT else [None]:
            plan.extend(PlannedStep(transport, interval, users) for users in steps)
    return plan


class SweepShape(LoadTestShape):
    """When a step's sample interval differs from the previous step's, every user is
    stopped first as at a change of transport (a subscription keeps the interval it was
    made with); the new interval goes into the run's options, which the master sends its
    workers with the next spawn message, before the new step's users start."""

    def _plan(self) -> tuple[list[PlannedStep], float, float]:
        options = self.runner.environment.parsed_options if self.runner else None
        transports = parse_transports(getattr(options, "lab_transports", "all"))
        steps = parse_steps(getattr(options, "lab_steps", "1,10,50,100,200,500"))
        seconds = float(getattr(options, "lab_step_seconds", 60.0))
        rate = float(getattr(options, "lab_spawn_rate", 50.0))
        intervals = parse_intervals(
            getattr(options, "lab_gnmi_intervals", "")
            or str(getattr(options, "lab_gnmi_interval_ms", GNMI_INTERVAL_MS))
        )
        return plan_steps([t.key for t in transports], intervals, steps), seconds, rate

    def tick(self) -> tuple[int, float, list[type]] | None:
        plan, seconds, rate = self._plan()
        index = int(self.get_run_time() // seconds)
        now = time.time()
        if index >= len(plan):
            if STATE.steps and STATE.steps[-1].ended is None:
                STATE.steps[-1].ended = now
            return None
        transport, interval, users = plan[index]
        if len(STATE.steps) <= index:
            if STATE.steps and STATE.steps[-1].ended is None:
                STATE.steps[-1].ended = now
            STATE.steps.append(StepWindow(transport, users, now, interval_ms=interval))
        step = STATE.steps[index]
        wanted = USER_CLASSES[transport]
        running = running_users(self.runner)
        if any(count for name, count in running.items() if name != wanted.__name__):
            return 0, rate, [wanted]
        options = self.runner.environment.parsed_options if self.runner else None
        if (
            interval is not None
            and options is not None
            and options.lab_gnmi_interval_ms != interval
        ):
            if any(running.values()):
                return 0, rate, [wanted]
            options.lab_gnmi_interval_ms = interval
        if step.ramped is None and running.get(wanted.__name__, 0) >= users:
            step.ramped = now
        return users, rate, [wanted]


def running_users(runner: Any) -> dict[str, int]:
    """Running users per class: a master adds up what its workers last reported."""
    if isinstance(runner, MasterRunner):
        total: Counter[str] = Counter()
        for worker in runner.clients.values():
            total.update(worker.user_classes_count or {})
        return dict(total)
    return dict(runner.user_classes_count) if runner is not None else {}
