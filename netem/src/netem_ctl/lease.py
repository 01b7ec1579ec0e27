"""The lab's run lock: a lease that lets one benchmark run at a time change the profile.

Two runs sharing the lab would switch the profile under each other. A run takes the lease, renews it
before its ttl runs out and presents its token with every profile change; while a lease is held,
changes without it are refused. Without a lease every change is accepted, as before the lock
existed. An expired lease is free, so a crashed run blocks the lab for one ttl at most. The lease
lives in memory: a restarted netem has none, and the holder's renew then fails.
"""

import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from .clock import Clock, iso, utc_now

log = logging.getLogger("netem.lease")

# Ended leases remembered, so a repeated release gets the same answer and a stale token is
# explained.
ENDED_KEPT = 256


@dataclass(frozen=True)
class Lease:
    token: str
    owner: str
    ttl_s: int
    acquired_at: datetime
    expires_at: datetime

    def holder(self) -> dict[str, Any]:
        """What anyone may see of the lease: everything but the token."""
        return {
            "owner": self.owner,
            "acquired_at": iso(self.acquired_at),
            "expires_at": iso(self.expires_at),
            "ttl_s": self.ttl_s,
        }

    def describe(self) -> str:
        return (
            f"the lab is locked by {self.owner!r} since {iso(self.acquired_at)} "
            f"until {iso(self.expires_at)}"
        )


@dataclass(frozen=True)
class Ended:
    lease: Lease
    how: Literal["released", "expired"]
    at: datetime


class LeaseError(Exception):
    """A refusal; `holder` is the lease held at the time, if any."""

    def __init__(self, message: str, holder: Lease | None):
        super().__init__(message)
        self.holder = holder

    def detail(self) -> dict[str, Any]:
        return {"message": str(self), "holder": self.holder.holder() if self.holder else None}


class LockedError(LeaseError):
    """Another run holds the lease."""


class NotAdmittedError(LeaseError):
    """A change without the held lease's token, or with a token that is not the lease any more."""


class NoSuchLeaseError(LeaseError):
    """Renewing or releasing a token that is not the lease held."""


class RunLock:
    def __init__(self, clock: Clock = utc_now):
        self._clock = clock
        self._mutex = threading.Lock()
        self._lease: Lease | None = None
        self._ended: OrderedDict[str, Ended] = OrderedDict()

    def acquire(self, owner: str, ttl_s: int) -> Lease:
        with self._mutex:
            now = self._clock()
            held = self._current(now)
            if held is not None:
                raise LockedError(held.describe(), held)
            self._lease = Lease(
                secrets.token_urlsafe(16), owner, ttl_s, now, now + timedelta(seconds=ttl_s)
            )
            log.info("run lock taken by %r for %d s", owner, ttl_s)
            return self._lease

    def renew(self, token: str, ttl_s: int | None = None) -> Lease:
        """New expiry: now + ttl_s, by default the ttl the lease was taken or last renewed with."""
        with self._mutex:
            now = self._clock()
            lease = self._own(token, now)
            ttl_s = ttl_s or lease.ttl_s
            self._lease = replace(lease, ttl_s=ttl_s, expires_at=now + timedelta(seconds=ttl_s))
            return self._lease

    def release(self, token: str) -> Ended:
        """Idempotent: releasing a released lease again answers as the first time did."""
        with self._mutex:
            ended = self._ended.get(token)
            if ended is not None and ended.how == "released":
                return ended
            now = self._clock()
            lease = self._own(token, now)
            self._lease = None
            log.info("run lock of %r released", lease.owner)
            return self._end(lease, "released", now)

    def holder(self) -> Lease | None:
        with self._mutex:
            return self._current(self._clock())

    @contextmanager
    def admit(self, token: str | None) -> Iterator[None]:
        """Runs a profile change (the with-block) if `token` may make it, else raises
        NotAdmittedError. Keeps the lease from changing hands until the change is done."""
        with self._mutex:
            held = self._current(self._clock())
            if token is not None and (held is None or token != held.token):
                # A run that presents a token believes it holds the lab; it must learn at once that
                # it does not.
                raise NotAdmittedError(
                    f"{self._why(token)}; {held.describe() if held else 'the lab is free'}", held
                )
            if token is None and held is not None:
                raise NotAdmittedError(f"{held.describe()}: a profile change needs its token", held)
            yield

    def _current(self, now: datetime) -> Lease | None:
        if self._lease is not None and now >= self._lease.expires_at:
            log.warning(
                "run lock of %r expired at %s", self._lease.owner, iso(self._lease.expires_at)
            )
            self._end(self._lease, "expired", self._lease.expires_at)
            self._lease = None
        return self._lease

    def _own(self, token: str, now: datetime) -> Lease:
        held = self._current(now)
        if held is None or token != held.token:
            raise NoSuchLeaseError(
                f"{self._why(token)}; {held.describe() if held else 'the lab is free'}", held
            )
        return held

    def _why(self, token: str) -> str:
        ended = self._ended.get(token)
        if ended is not None:
            return (
                f"this token's lease (owner {ended.lease.owner!r}) {ended.how} at {iso(ended.at)}"
            )
        return (
            "this token is unknown to this netem instance: never issued here, "
            "or netem restarted since"
        )

    def _end(self, lease: Lease, how: Literal["released", "expired"], at: datetime) -> Ended:
        ended = self._ended[lease.token] = Ended(lease, how, at)
        while len(self._ended) > ENDED_KEPT:
            self._ended.popitem(last=False)
        return ended
