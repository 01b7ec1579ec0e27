"""Client of the netem control API (contract: port 8181, JSON)."""

import time
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict

APPLY_TIMEOUT_S = 30.0
POLL_INTERVAL_S = 0.5
REQUEST_TIMEOUT_S = 15.0


class NetemProfile(BaseModel):
    """A profile as netem reports it; unknown fields are kept."""

    model_config = ConfigDict(extra="allow")

    name: str
    rtt_ms: float = 0.0
    jitter_ms: float = 0.0
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


class NetemError(RuntimeError):
    pass


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

    def apply(self, name: str) -> NetemState:
        """Apply a named profile, then poll GET /profile until it reports that profile."""
        response = self._http.put(f"/profile/{name}")
        if response.status_code == httpx.codes.NOT_FOUND:
            known = ", ".join(profile.name for profile in self.list_profiles())
            raise NetemError(f"netem has no profile {name!r} (known: {known})")
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
    def _raise_for_status(response: httpx.Response) -> None:
        if response.is_error:
            raise NetemError(
                f"netem {response.request.method} {response.request.url.path}: "
                f"HTTP {response.status_code}: {response.text.strip()[:200]}"
            )
