"""One run at a time per lab: the run lock netem keeps for whoever measures.

Every run that sets a profile (a bench, a plan, a sweep, nightly, load) takes the lease
before its first change and holds it to the end: a second run waits for it
(``--wait-for-lab``) or is refused with the holder's name, and no other client can change
the profile meanwhile (netem answers 423). A background thread renews the lease every third
of its ttl, so a crashed run frees the lab within one ttl. A restarted netem (after a device
restart) has no lease: the thread takes a new one if the lab is free, else the lease is
lost and ``lost`` says why; the profile guard sees the restart too.
"""

import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType

import httpx

from bench_runner.netem import LabBusyError, Lease, LeaseLostError, NetemClient, NetemError

TTL_S = 60.0
WAIT_POLL_S = 2.0


class LabLock:
    """``with LabLock(client_factory, owner) as lock: ... lock.lease ...``"""

    def __init__(
        self,
        client_factory: Callable[[], NetemClient],
        owner: str,
        wait_s: float = 0.0,
        ttl_s: float = TTL_S,
        on_wait: Callable[[str], None] = lambda message: None,
    ) -> None:
        self._client_factory = client_factory
        self.owner = owner
        self._wait_s = wait_s
        self._ttl_s = ttl_s
        self._on_wait = on_wait
        self._lease: Lease | None = None
        self._guard = threading.Lock()
        self._renewing = threading.Lock()
        """One renewal at a time: two that both found netem restarted would race to take the
        lease again, and the loser would call it lost."""
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self.lost: str | None = None
        """Why the lease is gone while the run still measures; None while it is held."""

    @property
    def lease(self) -> Lease | None:
        with self._guard:
            return self._lease

    def __enter__(self) -> "LabLock":
        client = self._client_factory()
        try:
            self._lease = self._acquire(client)
        finally:
            client.close()
        self._renewer = threading.Thread(
            target=self._renew_until_stopped, name="lab-lock", daemon=True
        )
        self._renewer.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        lease = self.lease
        if lease is None:
            return
        client = self._client_factory()
        try:
            client.release(lease)
        except (NetemError, httpx.HTTPError):
            pass  # it expires by itself within its ttl
        finally:
            client.close()

    def _acquire(self, client: NetemClient) -> Lease:
        """Take the lease, waiting up to ``wait_s`` for the run that holds it; LabBusyError
        (naming the holder) after that."""
        deadline = time.monotonic() + self._wait_s
        while True:
            try:
                return client.acquire(self.owner, self._ttl_s)
            except LabBusyError as exc:
                if time.monotonic() >= deadline:
                    raise
                self._on_wait(str(exc))
                time.sleep(WAIT_POLL_S)

    def _renew_until_stopped(self) -> None:
        client = self._client_factory()
        try:
            while not self._stop.wait(self._ttl_s / 3):
                self._renew(client)
        finally:
            client.close()

    def refresh(self) -> Lease | None:
        """The lease renewed now, for a change that must carry a valid one (a netem that
        restarted since the last renewal knows the lease no more); None once lost."""
        client = self._client_factory()
        try:
            self._renew(client)
        finally:
            client.close()
        return self.lease

    def _renew(self, client: NetemClient) -> None:
        with self._renewing:
            self._renew_once(client)

    def _renew_once(self, client: NetemClient) -> None:
        lease = self.lease
        if lease is None:
            return
        try:
            client.renew(lease)
        except LeaseLostError as exc:
            try:  # netem restarted and forgot it: the lab is ours again if it is free
                renewed = client.acquire(self.owner, self._ttl_s)
            except (NetemError, httpx.HTTPError) as again:
                self._lose(f"{exc}; taking it again failed: {again}")
                return
            with self._guard:
                self._lease = renewed
        except (NetemError, httpx.HTTPError):
            pass  # netem unreachable for a moment (a device restart): try again next round

    def _lose(self, reason: str) -> None:
        with self._guard:
            self._lease = None
            self.lost = reason


def run_owner(run_id: str) -> str:
    """Who holds the lab, as other runs are told."""
    return f"bench-runner run {run_id} on {socket.gethostname()}"
