"""HTTP control API (port 8181). Handlers are sync: FastAPI runs them in a thread pool."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException
from fastapi.responses import JSONResponse, PlainTextResponse

from . import metrics
from .controller import Controller
from .profiles import Profile, ProfilesFileError, load_profiles


def create_app(controller: Controller, profiles_file: Path, lifespan: Callable[..., Any] | None = None) -> FastAPI:
    app = FastAPI(title="Transport Lab netem", lifespan=lifespan)

    def profiles() -> dict[str, Profile]:
        try:
            return load_profiles(profiles_file)
        except ProfilesFileError as exc:
            raise HTTPException(500, f"profiles file is invalid: {exc}") from exc

    def apply(profile: Profile) -> dict[str, Any]:
        try:
            controller.apply(profile)
        except Exception as exc:
            raise HTTPException(500, f"applying profile {profile.name} failed (impairment cleared): {exc}") from exc
        return controller.status()

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

    @app.put("/profile/{name}")
    def put_named_profile(name: str) -> dict[str, Any]:
        profile = profiles().get(name)
        if profile is None:
            raise HTTPException(404, f"unknown profile {name!r}")
        return apply(profile)

    @app.put("/profile")
    def put_custom_profile(profile: Profile) -> dict[str, Any]:
        return apply(profile)

    @app.delete("/profile")
    def delete_profile() -> dict[str, Any]:
        try:
            controller.clear()
        except Exception as exc:
            raise HTTPException(500, f"clearing failed: {exc}") from exc
        return controller.status()

    @app.get("/metrics", response_class=PlainTextResponse)
    def get_metrics() -> PlainTextResponse:
        return PlainTextResponse(metrics.render(controller), media_type="text/plain; version=0.0.4")

    return app
