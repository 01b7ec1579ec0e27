"""The device's /version as every run records it: its crypto profile, or a visible gap."""

from typing import Any

import httpx
import pytest

from bench_runner import lab_info


def _serve(monkeypatch: pytest.MonkeyPatch, status: int, body: Any) -> list[str]:
    urls: list[str] = []

    def get(url: str, timeout: float) -> httpx.Response:
        urls.append(url)
        return httpx.Response(status, json=body, request=httpx.Request("GET", url))

    monkeypatch.setattr(lab_info.httpx, "get", get)
    return urls


def test_the_device_profile_is_recorded_as_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    crypto = {
        "source": "x",
        "ssh": {"kex": ["curve25519-sha256"]},
        "held": {"kex": "curve25519-sha256"},
    }
    urls = _serve(
        monkeypatch, 200, {"device_version": "1", "crypto_profile": "arista_eos", "crypto": crypto}
    )
    device = lab_info.device_version("http://198.18.100.130:9100/")
    assert urls == ["http://198.18.100.130:9100/version"]
    assert device["crypto_profile"] == "arista_eos"
    assert device["crypto"] == crypto


def test_a_device_without_profiles_is_marked_unreported(monkeypatch: pytest.MonkeyPatch) -> None:
    _serve(monkeypatch, 200, {"device_version": "0.9"})
    assert lab_info.device_version("http://device:9100") == {
        "device_version": "0.9",
        "crypto_profile": "unreported",
    }


def test_an_unreadable_version_is_a_visible_gap(monkeypatch: pytest.MonkeyPatch) -> None:
    _serve(monkeypatch, 503, {})
    assert set(lab_info.device_version("http://device:9100")) == {"unavailable"}
    _serve(monkeypatch, 200, ["not", "an", "object"])
    assert lab_info.device_version("http://device:9100") == {
        "unavailable": "expected a JSON object, got list"
    }
