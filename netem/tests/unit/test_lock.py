"""The run lock: one run at a time may change the profile; an expired lease is free; time is
injected."""

import threading

import pytest
from fastapi.testclient import TestClient

from netem_ctl.api import LOCK_HEADER, create_app
from netem_ctl.controller import Controller
from netem_ctl.engines.detect import EngineChoice
from netem_ctl.lease import ENDED_KEPT, NoSuchLeaseError, RunLock

from .test_api import FakeClock, RecordingEngine

T0 = "2026-11-22T13:35:00.000000+00:00"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def engine() -> RecordingEngine:
    return RecordingEngine()


@pytest.fixture
def controller(engine, clock) -> Controller:
    return Controller(engine, EngineChoice("nfq", "test"), clock=clock)


@pytest.fixture
def client(controller, clock, profiles_file) -> TestClient:
    return TestClient(create_app(controller, profiles_file, run_lock=RunLock(clock)))


def take(client: TestClient, owner: str = "run 7 on ci-2", **extra) -> dict:
    response = client.post("/lock", json={"owner": owner, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def with_token(token: str) -> dict[str, str]:
    return {LOCK_HEADER: token}


def test_acquire_shows_the_holder_and_conflicts(client, controller):
    assert client.get("/lock").json() == {"holder": None, "instance": controller.instance}
    lease = take(client)
    assert lease == {
        "token": lease["token"],
        "owner": "run 7 on ci-2",
        "acquired_at": T0,
        "expires_at": "2026-11-22T13:36:00.000000+00:00",
        "ttl_s": 60,
        "instance": controller.instance,
    }
    assert len(lease["token"]) >= 20
    shown = client.get("/lock").json()
    assert shown["holder"]["owner"] == "run 7 on ci-2"
    assert "token" not in shown["holder"]

    conflict = client.post("/lock", json={"owner": "run 8", "ttl_s": 10})
    assert conflict.status_code == 409
    detail = conflict.json()["detail"]
    assert detail["holder"] == {
        "owner": "run 7 on ci-2",
        "acquired_at": T0,
        "expires_at": "2026-11-22T13:36:00.000000+00:00",
        "ttl_s": 60,
    }
    assert "locked by 'run 7 on ci-2' since 2026-11-22T13:35:00" in detail["message"]
    assert "until 2026-11-22T13:36:00" in detail["message"]
    assert detail["instance"] == controller.instance


@pytest.mark.parametrize(
    "body",
    [
        {"owner": "x", "ttl_s": 0},
        {"owner": "x", "ttl_s": 3601},
        {"ttl_s": 60},
        {"owner": ""},
        {"owner": "x", "token": "mine"},
    ],
)
def test_acquire_validation(client, body):
    assert client.post("/lock", json=body).status_code == 422


def test_renew_moves_the_expiry(client, clock):
    token = take(client, ttl_s=30)["token"]
    clock.advance(25)
    renewed = client.put(f"/lock/{token}")
    assert renewed.status_code == 200
    assert renewed.json()["expires_at"] == "2026-11-22T13:35:55.000000+00:00"
    assert renewed.json()["acquired_at"] == T0
    clock.advance(25)  # past the first expiry
    assert client.get("/lock").json()["holder"]["owner"] == "run 7 on ci-2"
    longer = client.put(f"/lock/{token}", json={"ttl_s": 600}).json()
    assert longer["ttl_s"] == 600
    assert longer["expires_at"] == "2026-11-22T13:45:50.000000+00:00"
    assert client.put(f"/lock/{token}", json={"ttl_s": 5000}).status_code == 422


def test_an_expired_lease_is_free(client, clock):
    old = take(client, "crashed run", ttl_s=60)["token"]
    clock.advance(59.999)
    assert client.post("/lock", json={"owner": "next run"}).status_code == 409
    clock.advance(0.001)
    assert client.get("/lock").json()["holder"] is None
    assert client.put("/profile/regional").status_code == 200  # the lab is free: as without a lock
    new = take(client, "next run")["token"]
    renew = client.put(f"/lock/{old}")
    assert renew.status_code == 404
    assert (
        "owner 'crashed run') expired at 2026-11-22T13:36:00.000000+00:00"
        in renew.json()["detail"]["message"]
    )
    assert renew.json()["detail"]["holder"]["owner"] == "next run"
    assert client.delete(f"/lock/{old}").status_code == 404
    assert client.put("/profile/regional", headers=with_token(old)).status_code == 423
    assert client.put("/profile/regional", headers=with_token(new)).status_code == 200


def test_release_is_idempotent(client, clock):
    token = take(client)["token"]
    clock.advance(3)
    first = client.delete(f"/lock/{token}")
    assert first.status_code == 200
    assert first.json()["released"] is True
    assert first.json()["released_at"] == "2026-11-22T13:35:03.000000+00:00"
    clock.advance(3)
    assert client.delete(f"/lock/{token}").json() == first.json()
    assert client.get("/lock").json()["holder"] is None
    renew = client.put(f"/lock/{token}")
    assert renew.status_code == 404
    assert "released at" in renew.json()["detail"]["message"]
    unknown = client.delete("/lock/never-issued")
    assert unknown.status_code == 404
    assert "unknown to this netem instance" in unknown.json()["detail"]["message"]


def test_changes_need_the_token_while_the_lock_is_held(client, engine, controller):
    token = take(client)["token"]
    changes = [
        ("PUT", "/profile/regional", None),
        ("PUT", "/profile", {"name": "x", "rtt_ms": 5}),
        ("DELETE", "/profile", None),
    ]
    for method, path, body in changes:
        for headers in ({}, with_token("someone-elses"), with_token(token.upper())):
            refused = client.request(method, path, json=body, headers=headers)
            assert refused.status_code == 423, (method, path, headers)
            detail = refused.json()["detail"]
            assert detail["holder"]["owner"] == "run 7 on ci-2"
            assert "run 7 on ci-2" in detail["message"]
    assert engine.applied == []
    assert controller.history.generation == 0
    for method, path, body in changes:
        assert client.request(method, path, json=body, headers=with_token(token)).status_code == 200
    assert controller.history.generation == 3
    # Locked first, then looked up: an unknown profile is 404 only for the holder.
    assert client.put("/profile/mars").status_code == 423
    assert client.put("/profile/mars", headers=with_token(token)).status_code == 404


def test_changes_without_a_lock_are_accepted_as_before(client):
    assert client.put("/profile/regional").status_code == 200
    assert client.delete("/profile").status_code == 200
    token = take(client)["token"]
    client.delete(f"/lock/{token}")
    assert client.put("/profile/regional").status_code == 200
    # A released token is not silently accepted: its run believes it holds the lab.
    stale = client.put("/profile/regional", headers=with_token(token))
    assert stale.status_code == 423
    assert stale.json()["detail"]["holder"] is None
    assert "the lab is free" in stale.json()["detail"]["message"]


def test_reading_needs_no_token(client):
    take(client)
    for path in ("/healthz", "/profiles", "/profile", "/profile/history", "/lock", "/metrics"):
        # healthz: 503 until a profile is applied
        assert client.get(path).status_code in (200, 503), path


def test_a_restarted_netem_has_no_lock(client, profiles_file, clock):
    token = take(client)["token"]
    restarted = Controller(RecordingEngine(), EngineChoice("nfq", "test"), clock=clock)
    fresh = TestClient(create_app(restarted, profiles_file, run_lock=RunLock(clock)))
    assert fresh.get("/lock").json() == {"holder": None, "instance": restarted.instance}
    renew = fresh.put(f"/lock/{token}")
    assert renew.status_code == 404
    assert (
        renew.json()["detail"]["instance"]
        == restarted.instance
        != client.get("/profile").json()["instance"]
    )
    assert "netem restarted" in renew.json()["detail"]["message"]


def test_the_lease_cannot_change_hands_during_a_change(clock):
    lock = RunLock(clock)
    lease = lock.acquire("run a", 60)
    taken = []
    with lock.admit(lease.token):
        clock.advance(61)  # run a's lease expires while its change is being made
        other = threading.Thread(target=lambda: taken.append(lock.acquire("run b", 60)))
        other.start()
        other.join(0.1)
        assert not taken
    other.join(5)
    assert taken[0].owner == "run b"


def test_ended_leases_are_remembered_within_a_bound(clock):
    lock = RunLock(clock)
    tokens = []
    for n in range(ENDED_KEPT + 1):
        tokens.append(lock.acquire(f"run {n}", 1).token)
        lock.release(tokens[-1])
    assert lock.release(tokens[-1]).lease.owner == f"run {ENDED_KEPT}"
    with pytest.raises(NoSuchLeaseError, match="unknown to this netem instance"):
        lock.release(tokens[0])
