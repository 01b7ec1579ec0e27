"""One run at a time: the run lock taken from netem, waited for, renewed, lost."""

import threading
import time
from collections.abc import Iterator

import pytest

from bench_runner import lab_lock
from bench_runner.lab_lock import LabLock, run_owner
from bench_runner.netem import LabBusyError, NetemClient
from fake_netem import FakeNetem, serve_fake_netem


@pytest.fixture
def netem() -> Iterator[FakeNetem]:
    with serve_fake_netem() as fake:
        yield fake


def _lock(netem: FakeNetem, owner: str, wait_s: float = 0.0) -> LabLock:
    return LabLock(lambda: NetemClient(netem.url), owner, wait_s=wait_s)


def test_a_second_run_is_refused_with_the_holders_name(netem: FakeNetem) -> None:
    with (
        _lock(netem, run_owner("first")),
        pytest.raises(LabBusyError, match="held by bench-runner run first on "),
    ):
        _lock(netem, "second").__enter__()
    assert netem.holder is None  # released on exit


def test_a_second_run_may_wait_for_the_first(
    netem: FakeNetem, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lab_lock, "WAIT_POLL_S", 0.05)
    first = _lock(netem, "first").__enter__()
    waits: list[str] = []
    threading.Timer(0.3, first.__exit__, (None, None, None)).start()
    second = LabLock(lambda: NetemClient(netem.url), "second", wait_s=10, on_wait=waits.append)
    with second:
        assert second.lease is not None
        assert netem.holder is not None
        assert netem.holder["owner"] == "second"
    assert waits
    assert "held by first" in waits[0]


def test_profile_changes_carry_the_lease(netem: FakeNetem) -> None:
    with _lock(netem, "run") as lock:
        client = NetemClient(netem.url)
        assert client.apply("local", lock.lease).profile.name == "local"
        with pytest.raises(LabBusyError, match="held by run"):
            client.apply("regional")  # someone else, without the token


def test_after_a_netem_restart_the_lock_is_taken_again(netem: FakeNetem) -> None:
    with _lock(netem, "run") as lock:
        before = lock.lease
        netem.restart()
        lock._renew(NetemClient(netem.url))
        assert lock.lease is not None
        assert before is not None
        assert lock.lease.token != before.token
        assert lock.lost is None


def test_a_refreshed_lease_is_one_a_restarted_netem_knows(netem: FakeNetem) -> None:
    with _lock(netem, "run") as lock:
        stale = lock.lease
        netem.restart()
        client = NetemClient(netem.url)
        with pytest.raises(LabBusyError, match="unknown"):
            client.apply("local", stale)
        assert client.apply("local", lock.refresh()).profile.name == "local"


def test_a_lock_someone_else_took_meanwhile_is_lost(netem: FakeNetem) -> None:
    with _lock(netem, "run") as lock:
        netem.restart()
        assert NetemClient(netem.url).acquire("intruder", 60).owner == "intruder"
        lock._renew(NetemClient(netem.url))
        assert lock.lease is None
        assert lock.lost is not None
        assert "held by intruder" in lock.lost


def test_the_lease_is_renewed_in_the_background(
    netem: FakeNetem, monkeypatch: pytest.MonkeyPatch
) -> None:
    renewals: list[str] = []
    original = NetemClient.renew

    def counting(client: NetemClient, lease: lab_lock.Lease) -> None:
        renewals.append(lease.token)
        original(client, lease)

    monkeypatch.setattr(NetemClient, "renew", counting)
    with LabLock(lambda: NetemClient(netem.url), "run", ttl_s=0.15):
        time.sleep(0.4)
    assert len(renewals) >= 2
