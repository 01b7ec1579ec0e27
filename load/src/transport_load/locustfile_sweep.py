"""The locustfile of ``make sweep``: the users and hooks of locustfile.py and the shape."""

from transport_load.locustfile import *  # noqa: F403
from transport_load.sweep import SweepShape

__all__ = ["SweepShape"]
