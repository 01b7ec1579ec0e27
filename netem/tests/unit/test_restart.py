"""What survives a device restart: the interface identity check and the last applied profile."""

import logging

from netem_ctl.__main__ import starting_profile
from netem_ctl.controller import Controller
from netem_ctl.engines.detect import EngineChoice
from netem_ctl.link import LinkMonitor, interface_index
from netem_ctl.profiles import Profile
from netem_ctl.state import StateStore

from .test_api import RecordingEngine

REGIONAL = Profile(name="regional", rtt_ms=30, source="test")


def test_state_round_trip_and_atomic_replace(tmp_path):
    store = StateStore(tmp_path / "sub" / "state.json")
    assert store.load() is None
    store.save(REGIONAL)
    custom = Profile(name="lossy", rtt_ms=80, loss_pct=2, split=0.25)
    store.save(custom)
    assert store.load() == custom
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["state.json"]


def test_unreadable_state_is_ignored(tmp_path, caplog):
    store = StateStore(tmp_path / "state.json")
    store.path.write_text('{"name": "x", "rtt_ms": -1}')
    with caplog.at_level(logging.ERROR):
        assert store.load() is None
    assert "ignoring unreadable state file" in caplog.text


def test_starting_profile_prefers_the_saved_one(tmp_path, caplog):
    store = StateStore(tmp_path / "state.json")
    assert starting_profile(store, REGIONAL) == REGIONAL
    geo = Profile(name="geo", rtt_ms=600)
    store.save(geo)
    with caplog.at_level(logging.WARNING):
        assert starting_profile(store, REGIONAL) == geo
    assert "RESTARTED: re-applying the last applied profile geo" in caplog.text


def test_controller_records_every_applied_profile(tmp_path):
    store = StateStore(tmp_path / "state.json")
    controller = Controller(RecordingEngine(), EngineChoice("nfq", "test"), state=store)
    controller.apply(REGIONAL)
    assert store.load() == REGIONAL
    controller.clear()
    assert store.load().name == "none"
    assert store.load().rtt_ms == 0


def test_link_monitor_sees_vanished_and_replaced_interfaces():
    assert LinkMonitor("lo").problem() is None
    assert interface_index("netem-nonexistent0") is None
    replaced = LinkMonitor("lo")
    replaced.index = (replaced.index or 0) + 1000  # as if eth0 came back as another interface
    assert "changed ifindex" in (replaced.problem() or "")
    assert "did not exist at start" in (LinkMonitor("netem-nonexistent0").problem() or "")


def test_watchdog_gives_up_at_once_when_the_interface_is_gone(caplog):
    engine = RecordingEngine()
    link = LinkMonitor("lo")
    controller = Controller(engine, EngineChoice("nfq", "test"), link=link)
    controller.apply(REGIONAL)
    assert controller.check_and_repair() is True
    link.interface = "netem-nonexistent0"  # the interface seen at start has vanished
    with caplog.at_level(logging.CRITICAL):
        assert controller.check_and_repair() is False
    assert "has vanished" in caplog.text
    assert "impairs NOTHING" in caplog.text
    assert len(engine.applied) == 1  # no pointless repair in a dead namespace
