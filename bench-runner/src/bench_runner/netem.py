"""Client of the netem control API (contract: port 8181, JSON)."""

import time
from datetime import datetime
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict

APPLY_TIMEOUT_S = 30.0
CLEARED = "none"
"""The profile GET /profile reports after DELETE /profile: no impairment."""
LOCK_HEADER = "X-Netem-Lock"
POLL_INTERVAL_S = 0.5
REQUEST_TIMEOUT_S = 15.0


class NetemProfile(BaseModel):
    """A profile as netem reports it; unknown fields are kept."""

    model_config = ConfigDict(extra="allow")

    name: str
    rtt_ms: float = 0.0
    jitter_ms: float = 0.0
    keep_order: bool = False
    loss_pct: float = 0.0
    rate_mbit: float = 0.0
    source: str | None = None


class NetemState(BaseModel):
    """Body of GET /profile: the engine and the effective profile with its readback."""

    model_config = ConfigDict(extra="allow")

    engine: str
    engine_reason: str | None = None
    profile: NetemProfile
    applied_at: str | None = None
    readback: dict[str, Any] | None = None
    instance: str | None = None
    """The netem process (a restarted sidecar has a new one)."""
    generation: int | None = None
    """Counts every apply, clear, repair and failure of this instance."""


class HistoryEvent(BaseModel):
    """One entry of GET /profile/history."""

    generation: int
    event: str
    """``started``, ``applied``, ``cleared``, ``repaired`` or ``failed``."""
    profile: str | None
    at: datetime
    since: datetime | None = None
    """For a watchdog's repair or failure: when the rules were last seen in place."""


class History(BaseModel):
    instance: str
    events: list[HistoryEvent]

    def latest(self) -> HistoryEvent:
        return self.events[-1]


class Lease(BaseModel):
    """The lab's run lock, as POST /lock granted it."""

    token: str
    owner: str
    ttl_s: float
    instance: str


class NetemError(RuntimeError):
    pass


class LabBusyError(NetemError):
    """Another run holds the lab's run lock; the message names it."""


class LeaseLostError(NetemError):
    """The run lock this run held is gone (netem restarted, or the lease expired)."""


class NetemClient:
    def __init__(self, base_url: str) -> None:
        self._http = httpx.Client(base_url=base_url, timeout=REQUEST_TIMEOUT_S)

    def close(self) -> None:
        self._http.close()

    def list_profiles(self) -> list[NetemProfile]:
        body = self._get_json("/profiles")
        return [NetemProfile.model_validate(item) for item in body["profiles"]]

    def current(self) -> NetemState:
        return NetemState.model_validate(self._get_json("/profile"))

    def history(self) -> History:
        """The instance and its last events: cheap (no readback of the kernel's rules)."""
        return History.model_validate(self._get_json("/profile/history"))

    def acquire(self, owner: str, ttl_s: float) -> Lease:
        response = self._http.post("/lock", json={"owner": owner, "ttl_s": ttl_s})
        if response.status_code == httpx.codes.CONFLICT:
            raise LabBusyError(self._refusal(response))
        self._raise_for_status(response)
        return Lease.model_validate(response.json())

    def renew(self, lease: Lease) -> None:
        response = self._http.put(f"/lock/{lease.token}", json={"ttl_s": lease.ttl_s})
        if response.status_code == httpx.codes.NOT_FOUND:
            raise LeaseLostError(self._refusal(response))
        self._raise_for_status(response)

    def release(self, lease: Lease) -> None:
        response = self._http.delete(f"/lock/{lease.token}")
        if response.status_code != httpx.codes.NOT_FOUND:  # already gone: nothing to free
            self._raise_for_status(response)

    def apply(self, name: str, lease: Lease | None = None) -> NetemState:
        """Apply a named profile (under ``lease`` when this run holds the lab), then poll
        GET /profile until it reports that profile."""
        response = self._http.put(f"/profile/{name}", headers=_lock_header(lease))
        if response.status_code == httpx.codes.NOT_FOUND:
            known = ", ".join(profile.name for profile in self.list_profiles())
            raise NetemError(f"netem has no profile {name!r} (known: {known})")
        return self._settled(response, name)

    def restore(self, profile: NetemProfile, lease: Lease | None = None) -> NetemState:
        """Put back ``profile`` as GET /profile reported it: cleared (DELETE /profile), a
        profile of the profiles file by its name, else a custom one by its values."""
        if profile.name == CLEARED:
            response = self._http.delete("/profile", headers=_lock_header(lease))
        elif profile.name in {known.name for known in self.list_profiles()}:
            return self.apply(profile.name, lease)
        else:
            # GET /profile adds the per-direction figures netem derives from the values.
            values = profile.model_dump(exclude={"directions"})
            response = self._http.put("/profile", headers=_lock_header(lease), json=values)
        return self._settled(response, profile.name)

    def _settled(self, response: httpx.Response, name: str) -> NetemState:
        """After a change of the profile: poll GET /profile until it reports ``name``."""
        if response.status_code == httpx.codes.LOCKED:
            raise LabBusyError(self._refusal(response))
        self._raise_for_status(response)
        deadline = time.monotonic() + APPLY_TIMEOUT_S
        while True:
            state = self.current()
            if state.profile.name == name:
                return state
            if time.monotonic() > deadline:
                raise NetemError(
                    f"netem still reports profile {state.profile.name!r} "
                    f"{APPLY_TIMEOUT_S:.0f}s after applying {name!r}"
                )
            time.sleep(POLL_INTERVAL_S)

    def _get_json(self, path: str) -> Any:
        response = self._http.get(path)
        self._raise_for_status(response)
        return response.json()

    @staticmethod
    def _refusal(response: httpx.Response) -> str:
        """The message of a refusal by the run lock (its JSON ``detail``)."""
        try:
            detail = response.json().get("detail")
        except ValueError:
            return response.text.strip()[:200]
        if isinstance(detail, dict):
            return str(detail.get("message", detail))
        return str(detail)

    @staticmethod
    def _raise_for_status(response: httpx.Response) -> None:
        if response.is_error:
            raise NetemError(
                f"netem {response.request.method} {response.request.url.path}: "
                f"HTTP {response.status_code}: {response.text.strip()[:200]}"
            )


def _lock_header(lease: Lease | None) -> dict[str, str]:
    """What a change of the profile carries while this run holds the lab."""
    return {LOCK_HEADER: lease.token} if lease is not None else {}
