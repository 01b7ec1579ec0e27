"""How many cores the fleet tools may use: they run in the runner's container, whose CPU set
and CPU quota (cgroup v2 ``cpu.max``) bound them, whichever is smaller. The knee
(knee.py) reads the client's CPU against this, not against the host's cores."""

import os
from pathlib import Path

CGROUP_CPU_MAX = Path("/sys/fs/cgroup/cpu.max")


def quota_cores(cpu_max: str) -> float | None:
    """``cpu.max``'s ``<quota> <period>`` as cores; None for ``max`` (no quota) or nonsense."""
    parts = cpu_max.split()
    if len(parts) != 2 or parts[0] == "max":
        return None
    try:
        quota, period = int(parts[0]), int(parts[1])
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def available_cores(cpu_max_file: Path = CGROUP_CPU_MAX) -> float:
    cores = float(len(os.sched_getaffinity(0)))
    try:
        quota = quota_cores(cpu_max_file.read_text(encoding="ascii"))
    except OSError:
        quota = None
    return min(cores, quota) if quota is not None else cores
