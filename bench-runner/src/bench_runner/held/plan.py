"""What a held-connections sweep asks for (pure): the transport, the connection count of each
step, how long each step's operations run, how many connections open at a time."""

from dataclasses import dataclass
from typing import Literal, get_args

HeldTransportName = Literal["ssh", "https", "netconf", "gnmi"]
TRANSPORTS: tuple[str, ...] = get_args(HeldTransportName)

MAX_CONNECTIONS = 2000
"""Beyond this a step is a load test, not a hold (docs/load.md): and the runner's 1 GiB."""
MAX_OPERATIONS_PER_CONNECTION = 10_000
MAX_DURATION_S = 300.0
"""Every run is bounded; nginx closes a connection idle for 75 s, so a hold never idles."""
DEFAULT_OPEN_CONCURRENCY = 10
"""Connections in their setup at once: OpenSSH's default MaxStartups starts refusing
unauthenticated connections at 10, so a sweep opens no more at once than a stock sshd takes."""


class HoldPlanError(ValueError):
    """The sweep cannot run as asked; the message says why."""


@dataclass(frozen=True)
class HoldPlan:
    transport: str
    connections: tuple[int, ...]
    """Each step's count, ascending: the sweep stops at the first that cannot be held."""
    operations_per_connection: int | None
    """Each connection's sequential operations; None when ``duration_s`` bounds them."""
    duration_s: float | None
    open_concurrency: int = DEFAULT_OPEN_CONCURRENCY

    def __post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise HoldPlanError(
                f"--transport is one of {', '.join(TRANSPORTS)}, not {self.transport!r}"
            )
        if not self.connections:
            raise HoldPlanError("--connections names at least one count")
        for count in self.connections:
            if not 1 <= count <= MAX_CONNECTIONS:
                raise HoldPlanError(f"a step holds 1 to {MAX_CONNECTIONS} connections, not {count}")
        if list(self.connections) != sorted(set(self.connections)):
            raise HoldPlanError(
                f"--connections must ascend without repeats: {self.connections} (the sweep "
                "stops at the first count that cannot be held)"
            )
        if (self.operations_per_connection is None) == (self.duration_s is None):
            raise HoldPlanError("give --operations-per-connection or --duration, one of them")
        operations = self.operations_per_connection
        if operations is not None and not 1 <= operations <= MAX_OPERATIONS_PER_CONNECTION:
            raise HoldPlanError(
                f"--operations-per-connection is 1 to {MAX_OPERATIONS_PER_CONNECTION}, not "
                f"{operations}"
            )
        if self.duration_s is not None and not 0 < self.duration_s <= MAX_DURATION_S:
            raise HoldPlanError(
                f"--duration is above 0 and at most {MAX_DURATION_S:g} s, not {self.duration_s}"
            )
        if self.open_concurrency < 1:
            raise HoldPlanError(f"--open-concurrency is at least 1, not {self.open_concurrency}")


def parse_counts(text: str) -> tuple[int, ...]:
    """``1,10,100`` as counts; HoldPlanError for anything else."""
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise HoldPlanError(f"--connections takes counts like 1,10,100, not {text!r}") from exc
