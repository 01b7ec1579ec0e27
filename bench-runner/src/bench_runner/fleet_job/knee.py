"""The knee of a fleet sweep (pure): the step where the client's CPU, not the network, starts
to set the job's time.

It is sought per series (tool, connection, operation and how they ran), profile and devices
count, across that group's steps in increasing order of workers. Of each step:

- **past the model**: its wall time lies above the model's prediction by more than the step's
  own noise, i.e. above ``predicted_high_s`` = ``ceil(devices / workers)`` x the high end of
  the per-device p50's 95 % interval (summary.py). A wall time inside the prediction's
  interval is within noise of the model and never called past it; a step without that
  interval (fewer than 6 devices, or no device that succeeded) cannot be judged.
- **saturated**: the client kept at least ``SATURATION`` of the cores the tool can use busy
  over the job (``client_utilisation`` = client CPU / wall / usable cores, summary.py).

**The knee is the step of the fewest workers that is both past the model and saturated, every
step of fewer workers having been judged and found not to be.** Beyond it, more workers buy
less than the model promises because the client has no CPU left to drive them. Its status:

- ``knee``: found; the step's workers, wall time, the prediction's high end and utilisation.
- ``not reached``: every step was judged and none was both; the reason names a step past the
  model with CPU to spare, if any (then something else held it: the device, a tool's start-up).
- ``undetermined``: a step could not be judged (no interval, failed, no client usage) before
  any step was found to be the knee: a knee cannot be called there, nor ruled out.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

SATURATION = 0.8
"""The share of the usable cores at which the client counts as saturated: "approaching" it,
since a sampled CPU time, the tool's start-up in it and the scheduler keep a busy client from
reading exactly 1."""

KneeStatus = Literal["knee", "not reached", "undetermined"]


@dataclass(frozen=True)
class KneeStep:
    """What the knee needs of one step."""

    workers: int
    run_id: str
    ok: bool
    wall_s: float | None
    predicted_high_s: float | None
    client_utilisation: float | None


class Knee(BaseModel):
    label: str
    profile: str
    devices: int
    status: KneeStatus
    workers: int | None
    """The knee's workers count; None unless ``status`` is ``knee``."""
    run_id: str | None
    wall_s: float | None
    predicted_high_s: float | None
    client_utilisation: float | None
    steps: int
    """The steps it was sought across."""
    reason: str


def _unjudged(step: KneeStep) -> str | None:
    """Why a step cannot be judged; None when it can."""
    if not step.ok or step.wall_s is None:
        return "the step failed"
    if step.predicted_high_s is None:
        return "no per-device interval (fewer than 6 devices)"
    if step.client_utilisation is None:
        return "no client usage"
    return None


def find_knee(label: str, profile: str, devices: int, steps: Sequence[KneeStep]) -> Knee:
    """The knee of one group's steps (any order; sorted by workers here)."""
    ordered = sorted(steps, key=lambda step: step.workers)
    unjudged: str | None = None
    past_with_cpu_to_spare: KneeStep | None = None
    for step in ordered:
        why = _unjudged(step)
        if why is not None:
            unjudged = unjudged or f"workers={step.workers}: {why}"
            continue
        past = (step.wall_s or 0.0) > (step.predicted_high_s or 0.0)
        saturated = (step.client_utilisation or 0.0) >= SATURATION
        if past and saturated and unjudged is None:
            return Knee(
                label=label,
                profile=profile,
                devices=devices,
                status="knee",
                workers=step.workers,
                run_id=step.run_id,
                wall_s=step.wall_s,
                predicted_high_s=step.predicted_high_s,
                client_utilisation=step.client_utilisation,
                steps=len(ordered),
                reason=f"workers={step.workers}: {step.wall_s:.2f} s against at most "
                f"{step.predicted_high_s:.2f} s by the model, the client at "
                f"{step.client_utilisation:.0%} of its cores",
            )
        if past and saturated:
            break
        if past and past_with_cpu_to_spare is None:
            past_with_cpu_to_spare = step
    if unjudged is not None:
        status: KneeStatus = "undetermined"
        reason = f"cannot be called: {unjudged}"
    else:
        status = "not reached"
        spare = past_with_cpu_to_spare
        reason = (
            f"past the model at workers={spare.workers} with the client at "
            f"{spare.client_utilisation:.0%} of its cores: something else held it"
            if spare is not None
            else "every step within or under the model"
        )
    return Knee(
        label=label,
        profile=profile,
        devices=devices,
        status=status,
        workers=None,
        run_id=None,
        wall_s=None,
        predicted_high_s=None,
        client_utilisation=None,
        steps=len(ordered),
        reason=reason,
    )
