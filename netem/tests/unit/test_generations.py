"""Generations and history: every change of what is in effect is numbered, so a sample can be
checked against the profile it claims (GET /profile and /profile/history, the watchdog's repairs,
the
metrics)."""

import pytest
from fastapi.testclient import TestClient

from netem_ctl.api import create_app
from netem_ctl.controller import MAX_FAILED_REPAIRS, Controller
from netem_ctl.engines.detect import EngineChoice
from netem_ctl.history import HISTORY_SIZE
from netem_ctl.impairment import Impairment
from netem_ctl.lease import RunLock
from netem_ctl.profiles import Profile

from .test_api import FakeClock, RecordingEngine

REGIONAL = Profile(name="regional", rtt_ms=30)


class FlakyEngine(RecordingEngine):
    """Reports the rules missing `missing` times (as after a killed delayer); `broken` makes every
    apply fail."""

    def __init__(self) -> None:
        super().__init__()
        self.missing = 0
        self.broken = False

    def apply(self, impairment: Impairment) -> None:
        if self.broken:
            raise RuntimeError("delayer died")
        super().apply(impairment)

    def problems(self, impairment: Impairment) -> list[str]:
        if self.missing:
            self.missing -= 1
            return ["NFQUEUE rules missing"]
        return []


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def engine() -> FlakyEngine:
    return FlakyEngine()


@pytest.fixture
def controller(engine, clock) -> Controller:
    return Controller(engine, EngineChoice("nfq", "test"), clock=clock)


@pytest.fixture
def client(controller, clock, profiles_file) -> TestClient:
    return TestClient(create_app(controller, profiles_file, run_lock=RunLock(clock)))


def events(client: TestClient) -> list[tuple[int, str, str | None]]:
    return [
        (e["generation"], e["event"], e["profile"])
        for e in client.get("/profile/history").json()["events"]
    ]


def test_a_new_process_is_a_new_instance_at_generation_zero(client, controller):
    body = client.get("/profile").json()
    assert body["instance"] == controller.instance
    assert len(body["instance"]) == 16
    assert body["generation"] == 0
    assert body["profile"] is None
    history = client.get("/profile/history").json()
    assert history == {
        "instance": controller.instance,
        "events": [
            {
                "generation": 0,
                "event": "started",
                "profile": None,
                "at": "2026-11-22T13:35:00.000000+00:00",
            }
        ],
    }
    other = Controller(RecordingEngine(), EngineChoice("nfq", "test"))
    assert other.instance != controller.instance


def test_every_apply_and_clear_is_a_new_generation(client, clock):
    clock.advance(1.5)
    assert client.put("/profile/regional").json()["generation"] == 1
    clock.advance(1)
    # The same profile again: the rules are re-made.
    assert client.put("/profile/regional").json()["generation"] == 2
    body = client.put("/profile", json={"name": "lossy", "rtt_ms": 80, "loss_pct": 2}).json()
    assert body["generation"] == 3
    assert body["profile"]["name"] == "lossy"
    assert client.delete("/profile").json()["generation"] == 4
    assert client.get("/profile").json()["generation"] == 4
    assert events(client) == [
        (0, "started", None),
        (1, "applied", "regional"),
        (2, "applied", "regional"),
        (3, "applied", "lossy"),
        (4, "cleared", "none"),
    ]
    history = client.get("/profile/history").json()["events"]
    assert [e["at"] for e in history[:3]] == [
        "2026-11-22T13:35:00.000000+00:00",
        "2026-11-22T13:35:01.500000+00:00",
        "2026-11-22T13:35:02.500000+00:00",
    ]
    assert client.get("/profile").json()["applied_at"] == history[-1]["at"]


def test_refused_changes_are_no_generation(client):
    client.put("/profile/regional")
    assert client.put("/profile/mars").status_code == 404
    assert client.put("/profile", json={"rtt_ms": -5}).status_code == 422
    assert client.get("/profile").json()["generation"] == 1


def test_a_failed_apply_is_a_generation_and_leaves_the_impairment_cleared(client, engine):
    client.put("/profile/continental")
    engine.broken = True
    assert client.put("/profile/regional").status_code == 500
    body = client.get("/profile").json()
    assert body["generation"] == 2
    assert body["profile"]["name"] == "none"
    assert events(client)[-1] == (2, "failed", "regional")


def test_a_watchdog_repair_is_a_generation(controller, engine, client):
    controller.apply(REGIONAL)
    assert controller.check_and_repair() is True
    assert controller.history.generation == 1  # nothing missing, nothing new
    engine.missing = 1
    assert controller.check_and_repair() is True
    assert controller.repairs == 1
    assert len(engine.applied) == 2
    assert events(client)[-1] == (2, "repaired", "regional")
    assert client.get("/profile").json()["generation"] == 2


def test_a_repair_says_since_when_the_rules_were_missing(controller, engine, clock, client):
    """The rules were last seen in place by the previous watchdog round: what was measured
    from then to the repair was not the profile's."""
    controller.apply(REGIONAL)
    clock.advance(5)
    assert controller.check_and_repair() is True
    seen_at = clock()
    clock.advance(5)
    engine.missing = 1
    assert controller.check_and_repair() is True
    repaired = client.get("/profile/history").json()["events"][-1]
    assert repaired["event"] == "repaired"
    assert repaired["since"] == seen_at.isoformat(timespec="microseconds")
    assert "since" not in client.get("/profile/history").json()["events"][-2]


def test_a_watchdog_that_gives_up_records_a_failure(controller, engine):
    controller.apply(REGIONAL)
    engine.missing = 1 + MAX_FAILED_REPAIRS
    assert controller.check_and_repair() is False
    assert [(e["generation"], e["event"]) for e in controller.events()][-1] == (2, "failed")


def test_history_keeps_the_last_events_oldest_first(controller):
    for _ in range(HISTORY_SIZE + 44):
        controller.apply(REGIONAL)
    history = controller.events()
    assert len(history) == HISTORY_SIZE
    assert [e["generation"] for e in history] == list(range(45, HISTORY_SIZE + 45))
    assert controller.history.generation == HISTORY_SIZE + 44


def test_metrics_report_instance_generation_and_lock(client, controller):
    client.put("/profile/regional")
    text = client.get("/metrics").text
    assert f'netem_instance_info{{netem_instance="{controller.instance}"}} 1' in text
    assert "netem_profile_generation 1" in text
    assert "netem_lock_held 0" in text
    client.post("/lock", json={"owner": "run 1"})
    assert "netem_lock_held 1" in client.get("/metrics").text
