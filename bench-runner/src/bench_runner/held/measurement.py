"""What one step measured, raw (pure data): the durations in seconds, the errors as text,
the gauges' readings in bytes. summary.py turns it into the step's figures."""

from dataclasses import dataclass, field


@dataclass
class StepMeasurement:
    connections: int
    setup_s: list[float] = field(default_factory=list)
    open_errors: list[str] = field(default_factory=list)
    setup_wall_s: float = 0.0
    sockets: int | None = None
    operation_s: list[float] = field(default_factory=list)
    operation_errors: list[str] = field(default_factory=list)
    operations_window_s: float | None = None
    """None: no operations ran (the step's connections did not all open)."""
    client_before: int | None = None
    client_held: int | None = None
    device_before: int | None = None
    device_held: int | None = None
    device_error: str | None = None
