"""Where a throughput curve bends (pure).

Steps of a sweep, each (users, ops/s, p50 ms), in increasing users. The knee is the first
step that reaches 90 % of the sweep's best throughput: past it, more users add at most a
tenth more operations and mostly queueing (p50 grows with the users). Reported beside it:
``saturated_at_users``, the first step whose throughput grew less than 10 % over the
previous one although users grew, and ``max_power_users``, the step of maximal power
(ops/s divided by p50 ms, Kleinrock), the most throughput per unit of latency.
"""

import itertools
from dataclasses import dataclass

KNEE_FRACTION = 0.90


@dataclass(frozen=True)
class Step:
    users: int
    ops_per_s: float
    p50_ms: float


@dataclass(frozen=True)
class Knee:
    users: int
    ops_per_s: float
    p50_ms: float
    saturated_at_users: int | None
    """First step whose throughput barely grew (None: still growing at the last step)."""
    max_power_users: int


def find_knee(steps: list[Step], flat: float = 0.10) -> Knee | None:
    usable = sorted(
        (step for step in steps if step.ops_per_s > 0 and step.p50_ms > 0),
        key=lambda step: step.users,
    )
    if not usable:
        return None
    best = max(step.ops_per_s for step in usable)
    knee = next(step for step in usable if step.ops_per_s >= KNEE_FRACTION * best)
    power = max(usable, key=lambda step: step.ops_per_s / step.p50_ms)
    saturated: int | None = None
    for previous, step in itertools.pairwise(usable):
        if step.users > previous.users and step.ops_per_s < previous.ops_per_s * (1 + flat):
            saturated = step.users
            break
    return Knee(knee.users, knee.ops_per_s, knee.p50_ms, saturated, power.users)
