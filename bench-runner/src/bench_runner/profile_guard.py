"""Whether the profile a mode's samples claim was in effect while they were taken.

netem counts every change of its rules (``generation``: applies, clears, watchdog repairs,
failures) and names its process (``instance``: a sidecar restarted after a device restart
has a new one). The guard remembers both as they were when the profile was verified and,
checked between iterations, reports any difference: a restart, a change by anyone else,
rules that had vanished. It also waits for the profile to be back after a fault.
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import httpx

from bench_runner.netem import History, NetemClient, NetemError

POLL_INTERVAL_S = 0.5
RECOVERY_TIMEOUT_S = 90.0
"""A device restart takes its healthcheck's start (seconds) plus netem's restart and
re-apply (about 2.5 s)."""


@dataclass(frozen=True)
class Disturbance:
    """The claimed profile may not have been in effect since ``since`` (None: since the
    last check, when the change cannot be dated)."""

    reason: str
    since: datetime | None


class Guard(Protocol):
    """What a mode's profile watch asks between iterations."""

    def check(self) -> "Disturbance | None": ...

    def wait_until_applied(self, timeout_s: float = ...) -> str | None: ...


class ProfileGuard:
    def __init__(
        self, client: NetemClient, profile: str, instance: str | None, generation: int | None
    ) -> None:
        self._client = client
        self.profile = profile
        self._instance = instance
        self._generation = generation

    def check(self) -> Disturbance | None:
        """None while netem still has the profile as verified; else what changed."""
        try:
            history = self._client.history()
        except (NetemError, httpx.HTTPError) as exc:
            return Disturbance(f"netem unreachable ({type(exc).__name__}: {exc})", None)
        return self.compare(history)

    def compare(self, history: History) -> Disturbance | None:
        """The history against the verified state (pure)."""
        latest = history.latest()
        if history.instance != self._instance:
            return Disturbance(
                f"netem restarted (instance {self._instance} -> {history.instance})", None
            )
        if latest.generation == self._generation:
            return None
        changes = [
            event
            for event in history.events
            if self._generation is None or event.generation > self._generation
        ]
        first = changes[0] if changes else latest
        return Disturbance(
            f"netem changed its rules (generation {self._generation} -> {latest.generation}: "
            + ", ".join(f"{event.event} {event.profile or ''}".strip() for event in changes)
            + ")",
            # A repair found the rules missing: they were gone since the round before.
            first.since or first.at,
        )

    def wait_until_applied(self, timeout_s: float = RECOVERY_TIMEOUT_S) -> str | None:
        """Wait for netem to have the profile applied again (by its restart, or by its
        watchdog); adopt its state then. None when it is back, else why not."""
        deadline = time.monotonic() + timeout_s
        problem = "not checked"
        while time.monotonic() < deadline:
            try:
                history = self._client.history()
            except (NetemError, httpx.HTTPError) as exc:
                problem = f"netem unreachable ({type(exc).__name__}: {exc})"
            else:
                latest = history.latest()
                if latest.event in ("applied", "repaired") and latest.profile == self.profile:
                    self._instance, self._generation = history.instance, latest.generation
                    return None
                problem = f"netem's last event is {latest.event} {latest.profile}"
            time.sleep(POLL_INTERVAL_S)
        return f"profile {self.profile} not back within {timeout_s:g} s: {problem}"


class ProfileGuards:
    """Several netems guarded as one: a relayed mode's samples claim the WAN hop's profile
    (the remote site's netem) and the LAN hop's (the device's) together."""

    def __init__(self, guards: Sequence[ProfileGuard]) -> None:
        self._guards = tuple(guards)

    def check(self) -> Disturbance | None:
        """The first netem's change found, or None while every one is as verified."""
        for guard in self._guards:
            disturbance = guard.check()
            if disturbance is not None:
                return disturbance
        return None

    def wait_until_applied(self, timeout_s: float = RECOVERY_TIMEOUT_S) -> str | None:
        """Wait for every netem to have its profile back; the first that did not, else None."""
        deadline = time.monotonic() + timeout_s
        for guard in self._guards:
            problem = guard.wait_until_applied(max(deadline - time.monotonic(), 0.0))
            if problem is not None:
                return problem
        return None
