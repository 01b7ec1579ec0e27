"""Between a mode's iterations, whether the profile its samples claim is still in effect.

Checked every ``GUARD_INTERVAL_S`` and right after a failed iteration (a fault). On a
disturbance the iterations that may have run without the profile are excluded (kept,
marked, out of every figure), the mode waits for netem to have the profile back and passes
the RTT gate again before it measures on; if either fails it stops.
"""

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta

from bench_runner.profile_guard import Disturbance, Guard
from bench_runner.results import IterationRecord

GUARD_INTERVAL_S = 1.0
"""How often the profile guard asks netem between iterations: one cheap request a second,
outside the clock."""


class ProfileWatch:
    def __init__(
        self,
        guard: Guard,
        reverify: Callable[[], Awaitable[str | None]],
        records: list[IterationRecord],
        error_messages: list[str],
    ) -> None:
        self._guard = guard
        self._reverify = reverify
        self._records = records
        self._errors = error_messages
        self._checked_at = time.monotonic()
        self._unconfirmed_from = 0
        """Index of the first record since the last check that found nothing."""

    def due(self) -> bool:
        failed = bool(self._records) and self._records[-1].error is not None
        return failed or time.monotonic() - self._checked_at >= GUARD_INTERVAL_S

    async def confirm(self, *, recover: bool) -> bool:
        """False when the mode must stop: the profile did not come back."""
        disturbance = await asyncio.to_thread(self._guard.check)
        self._checked_at = time.monotonic()
        if disturbance is not None:
            excluded = self._exclude(disturbance)
            self._errors.append(
                f"{excluded} iterations excluded, the profile was not "
                f"verified while they ran: {disturbance.reason}"
            )
        self._unconfirmed_from = len(self._records)
        if disturbance is None or not recover:
            return True
        problem = await asyncio.to_thread(self._guard.wait_until_applied)
        if problem is None:
            problem = await self._reverify()
        if problem is not None:
            self._errors.append(f"stopped after a fault: {problem}")
            return False
        self._checked_at = time.monotonic()
        return True

    def _exclude(self, disturbance: Disturbance) -> int:
        """Mark the successful iterations that may have run without the profile: those
        that ended after the change when it is dated, else every one since the last
        check."""
        reason = f"profile not verified: {disturbance.reason}"
        excluded = 0
        for index, record in enumerate(self._records):
            if record.error is not None or record.excluded is not None:
                continue
            ended_at = record.started_at + timedelta(milliseconds=record.wall_ms)
            affected = (
                index >= self._unconfirmed_from
                if disturbance.since is None
                else ended_at >= disturbance.since
            )
            if affected:
                self._records[index] = replace(record, excluded=reason)
                excluded += 1
        return excluded
