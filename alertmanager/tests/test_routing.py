"""The lab's routing (alertmanager/routing.yml) on a real Alertmanager with nothing else: alerts
posted to its API as Prometheus posts them (labels as prometheus/rules/ set them), the
notifications counted by the test lab's webhook receiver (tests/e2e/alert_receiver.py), both on
the loopback of the Alertmanager container (`make test-alertmanager`). Timings short for a test:
ALERT_GROUP_WAIT and ALERT_GROUP_INTERVAL below. Each test has nights of its own and resolves
what it fired, so no test sees another's alerts."""

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from prerequisites import missing

ALERTMANAGER_URL = "http://127.0.0.1:9093"
RECEIVER_URL = "http://127.0.0.1:8080/"
RECEIVER = "/e2e/alert_receiver.py"
GROUP_INTERVAL_S = 1.0
"""ALERT_GROUP_INTERVAL of `make test-alertmanager`. Its group wait is 1 s too: thirty alerts
posted in one request enter their group within a millisecond, three orders of magnitude inside
the wait, so the first notification has them all even on a busy machine."""
NOTIFIED_WITHIN_S = 60.0
"""Bound on an alert's first notification (a group wait and a flush: about 1 s)."""
QUIET_S = 3 * GROUP_INTERVAL_S + 1
"""Past three group flushes: what is not sent by then is not sent (Alertmanager flushes a
group on its interval; a busy machine can delay a flush, never add one, so a count taken after
this wait cannot be too high by chance)."""
STARTED_WITHIN_S = 30.0
PROFILES = ("local", "campus", "regional", "continental")
MODES = ("ssh/fresh-conn", "ssh/reuse-conn", "ssh/pty-fresh", "https/fresh-conn")
CLIENTS = ("asyncssh", "paramiko")


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def _answers(url: str) -> bool:
    """Whether ``url`` answers within STARTED_WITHIN_S (a container just started)."""
    deadline = time.monotonic() + STARTED_WITHIN_S
    while True:
        try:
            _get(url)
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)


def _post_alerts(alerts: list[dict[str, Any]]) -> None:
    request = urllib.request.Request(
        f"{ALERTMANAGER_URL}/api/v2/alerts",
        data=json.dumps(alerts).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def _alert(labels: dict[str, str], summary: str, resolved: bool = False) -> dict[str, Any]:
    """Starting now, as Prometheus sends an alert that has just begun to fire (one that
    started a group wait ago or more would flush its group at once, Alertmanager's catch-up
    after a restart)."""
    now = datetime.now(UTC)
    ends = now if resolved else now + timedelta(hours=1)
    return {
        "labels": labels,
        "annotations": {"summary": summary},
        "startsAt": now.isoformat(),
        "endsAt": ends.isoformat(),
    }


def _regression(night: str, run_id: str, profile: str, mode: str, client: str) -> dict[str, Any]:
    labels = {
        "alertname": "BenchModeRegressed",
        "severity": "warning",
        "family": "bench",
        "night": night,
        "job": "transport_bench",
        "run_id": run_id,
        "profile": profile,
        "engine": "nfq",
        "mode": mode,
        "transport": mode.split("/")[0],
        "client": client,
        "client_version": "1.0",
    }
    return _alert(labels, f"{mode} ({client}) regressed 12.5 % in run {run_id} ({profile})")


def _night(stamp: str, profiles: tuple[str, ...] = PROFILES) -> dict[str, list[dict[str, Any]]]:
    """A nightly sweep's regressions per profile, as its runs push them: run ids
    nightly-<start>-<profile>, one night; 8 series a profile."""
    night = f"nightly-{stamp}"
    return {
        profile: [
            _regression(night, f"{night}-{profile}", profile, mode, client)
            for mode in MODES
            for client in CLIENTS
        ]
        for profile in profiles
    }


def _lab_alert(name: str, severity: str, family: str, resolved: bool = False) -> dict[str, Any]:
    labels = {"alertname": name, "severity": severity, "family": family, "job": "device"}
    return _alert(labels, f"{name} (test)", resolved)


def _notifications(night: str) -> list[dict[str, Any]]:
    received: list[dict[str, Any]] = _get(RECEIVER_URL)
    return [n for n in received if n["groupLabels"].get("night") == night]


def _named(name: str) -> list[dict[str, Any]]:
    received: list[dict[str, Any]] = _get(RECEIVER_URL)
    return [n for n in received if any(a["labels"]["alertname"] == name for a in n["alerts"])]


def _notified(night: str) -> list[dict[str, Any]]:
    deadline = time.monotonic() + NOTIFIED_WITHIN_S
    while not (found := _notifications(night)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return found


def _states(night: str) -> dict[str, list[str]]:
    """Alertmanager's state of each alert of the night, and what inhibits it."""
    alerts: list[dict[str, Any]] = _get(f"{ALERTMANAGER_URL}/api/v2/alerts")
    return {
        alert["labels"]["run_id"] + alert["labels"]["mode"] + alert["labels"]["client"]: [
            alert["status"]["state"],
            *alert["status"]["inhibitedBy"],
        ]
        for alert in alerts
        if alert["labels"].get("night") == night
    }


@pytest.fixture(scope="module", autouse=True)
def receiver() -> Iterator[None]:
    if not _answers(f"{ALERTMANAGER_URL}/api/v2/status"):
        missing(f"no Alertmanager on {ALERTMANAGER_URL}: run `make test-alertmanager`")
    process = subprocess.Popen([sys.executable, RECEIVER])
    assert _answers(RECEIVER_URL), "the receiver did not start"
    yield
    process.terminate()
    process.wait(timeout=10)


def test_thirty_regressions_of_a_night_are_one_notification() -> None:
    night = _night("20261101T020000Z")
    alerts = [alert for profile in PROFILES for alert in night[profile]][:30]
    _post_alerts(alerts)
    first = _notified("nightly-20261101T020000Z")
    time.sleep(QUIET_S)
    notifications = _notifications("nightly-20261101T020000Z")
    assert len(first) == 1
    assert len(notifications) == 1, [len(n["alerts"]) for n in notifications]
    assert len(notifications[0]["alerts"]) == 30
    assert notifications[0]["receiver"] == "notify-firing-only"
    assert notifications[0]["groupLabels"] == {
        "family": "bench",
        "night": "nightly-20261101T020000Z",
    }


def test_a_night_under_way_is_one_notification_when_it_ends() -> None:
    """The profiles of a nightly run finish an hour apart: held while NightlyRunInProgress
    fires, they are sent together once it resolves."""
    night = _night("20261102T020000Z")
    in_progress = _lab_alert("NightlyRunInProgress", "none", "nightly")
    _post_alerts([in_progress])
    for profile in PROFILES:
        _post_alerts(night[profile])
        time.sleep(QUIET_S)
        assert _notifications("nightly-20261102T020000Z") == []
    assert _named("NightlyRunInProgress") == []
    _post_alerts([_lab_alert("NightlyRunInProgress", "none", "nightly", resolved=True)])
    first = _notified("nightly-20261102T020000Z")
    time.sleep(QUIET_S)
    notifications = _notifications("nightly-20261102T020000Z")
    assert len(first) == 1
    assert len(notifications) == 1
    assert len(notifications[0]["alerts"]) == len(PROFILES) * len(MODES) * len(CLIENTS)


def test_a_lab_target_down_mutes_every_per_mode_alert() -> None:
    manual = "20261103T101010Z-abc123"
    regressions = [
        _regression(manual, manual, "regional", mode, "asyncssh") for mode in MODES
    ] + _night("20261103T020000Z", ("local",))["local"]
    down = _lab_alert("LabTargetDown", "critical", "lab")
    _post_alerts([down, *regressions])
    time.sleep(QUIET_S)
    assert _notifications(manual) == []
    assert _notifications("nightly-20261103T020000Z") == []
    assert len(_named("LabTargetDown")) == 1
    for night in (manual, "nightly-20261103T020000Z"):
        states = _states(night)
        assert states
        assert all(state[0] == "suppressed" and len(state) == 2 for state in states.values())
    _post_alerts([_lab_alert("LabTargetDown", "critical", "lab", resolved=True)])
    assert len(_notified(manual)) == 1


def test_a_failed_night_mutes_only_the_nightly_runs_per_mode_alerts() -> None:
    manual = "20261104T101010Z-def456"
    nightly = _night("20261104T020000Z", ("local",))["local"]
    by_hand = [_regression(manual, manual, "regional", mode, "asyncssh") for mode in MODES]
    failed = _lab_alert("NightlyRunFailed", "warning", "nightly")
    _post_alerts([failed, *nightly, *by_hand])
    assert len(_notified(manual)) == 1
    time.sleep(QUIET_S)
    assert _notifications("nightly-20261104T020000Z") == []
    assert len(_named("NightlyRunFailed")) == 1
    _post_alerts([_lab_alert("NightlyRunFailed", "warning", "nightly", resolved=True)])


def test_info_is_shown_never_sent() -> None:
    _post_alerts([_lab_alert("NetemEngineNotRequested", "info", "lab")])
    time.sleep(QUIET_S)
    assert _named("NetemEngineNotRequested") == []
    shown: list[dict[str, Any]] = _get(f"{ALERTMANAGER_URL}/api/v2/alerts")
    assert any(a["labels"]["alertname"] == "NetemEngineNotRequested" for a in shown)
