"""HTTP control API (port 8181). Handlers are sync: FastAPI runs them in a thread pool."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Header, HTTPException
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from . import metrics
from .clock import iso
from .controller import Controller
from .fleet import FleetAddresses
from .lease import Lease, LeaseError, LockedError, NoSuchLeaseError, NotAdmittedError, RunLock
from .profiles import Profile, ProfilesFileError, load_profiles

LOCK_HEADER = "X-Netem-Lock"
LockToken = Annotated[str | None, Header(alias=LOCK_HEADER)]
TtlSeconds = Annotated[
    int, Field(ge=1, le=3600, description="seconds until the lease expires unless renewed")
]


class LockRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    owner: str = Field(min_length=1, max_length=256, description="free text: run id, host")
    ttl_s: TtlSeconds = 60


class RenewRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ttl_s: TtlSeconds | None = None  # default: the lease's ttl


def create_app(
    controller: Controller,
    profiles_file: Path,
    lifespan: Callable[..., Any] | None = None,
    run_lock: RunLock | None = None,
    fleet: FleetAddresses | None = None,
) -> FastAPI:
    app = FastAPI(title="Transport Lab netem", lifespan=lifespan)
    lock = run_lock or RunLock()

    def profiles() -> dict[str, Profile]:
        try:
            return load_profiles(profiles_file)
        except ProfilesFileError as exc:
            raise HTTPException(500, f"profiles file is invalid: {exc}") from exc

    def apply(profile: Profile) -> dict[str, Any]:
        try:
            controller.apply(profile)
        except Exception as exc:
            raise HTTPException(
                500, f"applying profile {profile.name} failed (impairment cleared): {exc}"
            ) from exc
        return controller.status()

    def refused(status: int, exc: LeaseError) -> HTTPException:
        return HTTPException(status, {**exc.detail(), "instance": controller.instance})

    def lease_body(lease: Lease) -> dict[str, Any]:
        return {"token": lease.token, **lease.holder(), "instance": controller.instance}

    @contextmanager
    def admitted(token: str | None) -> Iterator[None]:
        try:
            with lock.admit(token):
                yield
        except NotAdmittedError as exc:
            raise refused(423, exc) from exc

    @app.get("/healthz")
    def healthz() -> JSONResponse:
        body = {"ok": controller.ready, "engine": controller.choice.name}
        return JSONResponse(body, status_code=200 if controller.ready else 503)

    @app.get("/profiles")
    def list_profiles() -> dict[str, Any]:
        return {"profiles": [profile.model_dump() for profile in profiles().values()]}

    @app.get("/profile")
    def get_profile() -> dict[str, Any]:
        return controller.status()

    @app.get("/fleet")
    def get_fleet() -> dict[str, Any]:
        """The emulated devices' addresses this sidecar put on the interface."""
        if fleet is None:
            raise HTTPException(404, "no device fleet configured")
        return fleet.status()

    @app.get("/profile/history")
    def get_history() -> dict[str, Any]:
        return {"instance": controller.instance, "events": controller.events()}

    @app.put("/profile/{name}")
    def put_named_profile(name: str, token: LockToken = None) -> dict[str, Any]:
        with admitted(token):
            profile = profiles().get(name)
            if profile is None:
                raise HTTPException(404, f"unknown profile {name!r}")
            return apply(profile)

    @app.put("/profile")
    def put_custom_profile(profile: Profile, token: LockToken = None) -> dict[str, Any]:
        with admitted(token):
            return apply(profile)

    @app.delete("/profile")
    def delete_profile(token: LockToken = None) -> dict[str, Any]:
        with admitted(token):
            try:
                controller.clear()
            except Exception as exc:
                raise HTTPException(500, f"clearing failed: {exc}") from exc
            return controller.status()

    @app.get("/lock")
    def get_lock() -> dict[str, Any]:
        held = lock.holder()
        return {"holder": held.holder() if held else None, "instance": controller.instance}

    @app.post("/lock")
    def take_lock(request: LockRequest) -> dict[str, Any]:
        try:
            return lease_body(lock.acquire(request.owner, request.ttl_s))
        except LockedError as exc:
            raise refused(409, exc) from exc

    @app.put("/lock/{token}")
    def renew_lock(token: str, request: RenewRequest | None = None) -> dict[str, Any]:
        try:
            return lease_body(lock.renew(token, request.ttl_s if request else None))
        except NoSuchLeaseError as exc:
            raise refused(404, exc) from exc

    @app.delete("/lock/{token}")
    def release_lock(token: str) -> dict[str, Any]:
        try:
            ended = lock.release(token)
        except NoSuchLeaseError as exc:
            raise refused(404, exc) from exc
        return {
            "released": True,
            "owner": ended.lease.owner,
            "released_at": iso(ended.at),
            "instance": controller.instance,
        }

    @app.get("/metrics", response_class=PlainTextResponse)
    def get_metrics() -> PlainTextResponse:
        return PlainTextResponse(
            metrics.render(controller, lock, fleet), media_type="text/plain; version=0.0.4"
        )

    return app
