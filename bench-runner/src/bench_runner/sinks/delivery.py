"""Outcome of handing a payload to a sink."""

from dataclasses import dataclass
from pathlib import Path


class SinkError(RuntimeError):
    """The sink did not accept the payload; the message says why."""


@dataclass(frozen=True)
class Delivery:
    sink: str
    delivered: bool
    detail: str
    """What was delivered, or why not and where the payload was spooled."""
    spooled_to: Path | None = None
    set_aside: bool = False
    """The spooled file was no payload: moved to ``spooled_to``, out of every replay."""
