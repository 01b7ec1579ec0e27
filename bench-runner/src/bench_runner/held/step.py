"""A step's figures as hold.json records them (``steps[]``, SCHEMA.md)."""

from pydantic import BaseModel

from bench_runner.stats import Stats


class MemoryPerConnection(BaseModel):
    """What the connections of a step added to a gauge (bytes), shared out per connection."""

    before_bytes: int | None
    """Before the step's connections were opened."""
    held_bytes: int | None
    """While all of them were held, after their operations."""
    per_connection_bytes: float | None
    """(held - before) / connections; None when either is missing or the gauge fell."""
    note: str | None
    """Why there is no figure."""


class HeldStep(BaseModel):
    connections: int
    opened: int
    """Connections whose setup succeeded."""
    setup: Stats
    """Each opened connection's setup, ms; the ones that failed counted in ``errors``."""
    setup_wall_s: float
    """From the first setup's start to the last one's end."""
    sockets: int | None
    """The runner's established TCP connections to the transport's port while holding: one
    per held connection, unless a client shares its connections."""
    operations: Stats | None
    """Each operation, ms, across every connection; failed ones in ``errors``. None when
    the step ran none (its connections did not all open)."""
    operations_window_s: float | None
    """From the operations' start on every connection to the last one's end."""
    operations_per_s: float | None
    """Successful operations over that window, across every connection."""
    client_memory: MemoryPerConnection
    """The runner's resident set size (its children's too)."""
    device_memory: MemoryPerConnection
    """The device container's memory (cgroup, page cache included)."""
    profile_unchanged: bool
    ok: bool
    """Every connection opened and carried its operations, the profile unchanged: only then
    is the step published."""
    error: str | None
