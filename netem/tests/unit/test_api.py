"""The HTTP API against an in-memory engine (the real engines are covered by the integration
tests)."""

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from ipaddress import IPv4Network

import pytest
from fastapi.testclient import TestClient

from netem_ctl.api import create_app
from netem_ctl.controller import Controller
from netem_ctl.engines.base import Engine
from netem_ctl.engines.detect import EngineChoice
from netem_ctl.engines.runner import CommandRunner
from netem_ctl.fleet import Fleet, FleetAddresses
from netem_ctl.impairment import Impairment


class RecordingEngine(Engine):
    name = "nfq"

    def __init__(self) -> None:
        self.applied: list[Impairment] = []
        self.cleared = 0

    def apply(self, impairment: Impairment) -> None:
        self.applied.append(impairment)

    def clear(self) -> None:
        self.cleared += 1

    def problems(self, impairment: Impairment) -> list[str]:
        return []

    def readback(self) -> dict[str, str]:
        return {"tc": "", "iptables": "-A NETEM_LAB_IN ..."}


class FakeClock:
    """Injected wall clock: tests move time on instead of sleeping."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 22, 13, 35, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def engine() -> RecordingEngine:
    return RecordingEngine()


@pytest.fixture
def controller(engine) -> Controller:
    return Controller(engine, EngineChoice("nfq", "auto: kernel has no sch_netem"))


@pytest.fixture
def client(controller, profiles_file) -> TestClient:
    return TestClient(create_app(controller, profiles_file))


def test_healthz_is_503_until_a_profile_is_applied(client):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert client.put("/profile/local").status_code == 200
    assert client.get("/healthz").json() == {"ok": True, "engine": "nfq"}


def test_profiles_listing(client):
    names = [p["name"] for p in client.get("/profiles").json()["profiles"]]
    assert names[:3] == ["local", "campus", "regional"]


def test_put_named_profile_applies_and_reports(client, engine):
    body = client.put("/profile/regional").json()
    assert engine.applied[-1] == Impairment(rtt_ms=30)
    assert body["engine"] == "nfq"
    assert body["engine_reason"] == "auto: kernel has no sch_netem"
    assert body["profile"]["name"] == "regional"
    assert body["profile"]["directions"]["toward_device"]["delay_us"] == 15000
    assert body["applied_at"]
    assert body["readback"]["iptables"].startswith("-A NETEM_LAB_IN")
    assert client.get("/profile").json()["profile"]["name"] == "regional"


def test_unknown_profile_is_404(client):
    assert client.put("/profile/mars").status_code == 404


def test_custom_profile_and_validation(client, engine):
    body = client.put(
        "/profile", json={"name": "lossy", "rtt_ms": 80, "loss_pct": 2, "split": 0.25}
    ).json()
    assert body["profile"]["name"] == "lossy"
    assert engine.applied[-1] == Impairment(rtt_ms=80, loss_pct=2, split=0.25)
    assert client.put("/profile", json={"rtt_ms": -5}).status_code == 422
    assert client.put("/profile", json={"rtt_ms": 5, "bogus": 1}).status_code == 422


def test_delete_clears_to_all_zero(client, engine):
    client.put("/profile/geo")
    body = client.delete("/profile").json()
    assert engine.applied[-1].is_neutral
    assert body["profile"]["rtt_ms"] == 0


def test_metrics(client):
    client.put("/profile/continental")
    text = client.get("/metrics").text
    assert 'netem_profile_info{profile="continental",engine="nfq"} 1' in text
    assert "netem_profile_rtt_seconds 0.07" in text
    assert (
        'netem_engine_info{engine="nfq",requested="auto",reason="auto: kernel has no sch_netem"} 1'
        in text
    )


def test_failed_apply_is_500_and_clears(controller, engine, profiles_file):
    def explode(impairment: Impairment) -> None:
        raise RuntimeError("delayer died")

    engine.apply = explode  # type: ignore[method-assign]
    client = TestClient(create_app(controller, profiles_file))
    response = client.put("/profile/regional")
    assert response.status_code == 500
    assert "delayer died" in response.json()["detail"]
    assert engine.cleared == 1


class FakeInterfaceRunner(CommandRunner):
    """`ip -json addr show` answers with the lab address and the fleet's first device."""

    def output(self, argv: Sequence[str]) -> str:
        return json.dumps(
            [
                {
                    "addr_info": [
                        {"family": "inet", "local": "198.18.100.2", "prefixlen": 24},
                        {"family": "inet", "local": "198.18.100.129", "prefixlen": 32},
                    ]
                }
            ]
        )


def test_fleet_route_and_metrics(controller, profiles_file):
    fleet = FleetAddresses(
        FakeInterfaceRunner(), "eth0", Fleet(2, IPv4Network("198.18.100.128/25"))
    )
    client = TestClient(create_app(controller, profiles_file, fleet=fleet))
    assert client.get("/fleet").json() == {
        "size": 2,
        "block": "198.18.100.128/25",
        "addresses": ["198.18.100.129", "198.18.100.130"],
        "missing": ["198.18.100.130"],
    }
    text = client.get("/metrics").text
    assert 'netem_fleet_addresses{state="wanted"} 2' in text
    assert 'netem_fleet_addresses{state="missing"} 1' in text


def test_fleet_route_without_a_fleet(client):
    assert client.get("/fleet").status_code == 404
