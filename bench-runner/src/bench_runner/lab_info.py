"""Provenance recorded with every run: versions of the runner and the device (client
versions: ``Mode.client_version``)."""

import platform
import ssl
from typing import Any

import httpx

from bench_runner import __version__
from bench_runner.modes.clients import openssh
from bench_runner.results import RunnerInfo

DEVICE_VERSION_TIMEOUT_S = 10.0


def runner_info() -> RunnerInfo:
    return RunnerInfo(
        version=__version__,
        python=platform.python_version(),
        openssl=ssl.OPENSSL_VERSION,
        openssh=openssh.version(),
    )


def device_version(metrics_url: str) -> dict[str, Any]:
    """GET {DEVICE_METRICS_URL}/version. When it cannot be read the run goes on and records
    ``{"unavailable": reason}`` instead, so the gap is visible in the results. The device
    answers for the emulated device whose address the URL names, with its ``crypto_profile``
    (the SSH and TLS algorithms it offered); a device too old to report one is recorded as
    ``"crypto_profile": "unreported"``, never as a profile it may not have had."""
    try:
        response = httpx.get(f"{metrics_url.rstrip('/')}/version", timeout=DEVICE_VERSION_TIMEOUT_S)
        response.raise_for_status()
        body = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        return {"unavailable": f"{type(exc).__name__}: {exc}"}
    if not isinstance(body, dict):
        return {"unavailable": f"expected a JSON object, got {type(body).__name__}"}
    body.setdefault("crypto_profile", "unreported")
    return body
