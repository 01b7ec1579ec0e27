"""Alerts that reach someone: a run whose verdicts are regressions, pushed through the runner's
own Pushgateway sink, makes Prometheus fire BenchModeRegressed for each of its modes, and
Alertmanager delivers them to the test lab's webhook receiver (compose.test.yaml,
alert-receiver) as one notification, once, whose text names each mode, client, profile and
change (docs/alerts.md)."""

import os
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench_runner.results import RunResult
from bench_runner.settings import Settings
from bench_runner.sinks import pushgateway
from bench_runner.sinks.spool import Spool
from bench_runner.verdicts.model import Verdict
from conftest import RESULTS_DIR, BenchRun, bench

RECEIVER_URL = os.environ.get("ALERT_RECEIVER_URL", "http://alert-receiver:8080/")
ALERTMANAGER_URL = os.environ.get("ALERTMANAGER_URL", "http://alertmanager:9093")
PROFILE = "campus"
"""No other end-to-end test pushes this profile: the Pushgateway keeps one run per profile,
and this test's pushed verdicts must replace no other test's figures."""
CHANGE_PCT = (12.5, 25.0, 37.5, 50.0, 62.5, 75.0)
"""One change per mode, exact in binary, so each alert's text is known to the digit."""
GROUP_INTERVAL_S = 10.0
"""ALERT_GROUP_INTERVAL of compose.test.yaml."""
FIRST_NOTIFICATION_S = 180.0
"""Bound on push to notification: a scrape (5 s), an evaluation (5 s), Prometheus's send and
the group's wait (10 s) take about 20 s; the rest is room for a busy machine."""


def _received() -> list[dict[str, Any]]:
    response = httpx.get(RECEIVER_URL, timeout=10)
    response.raise_for_status()
    notifications: list[dict[str, Any]] = response.json()
    return notifications


def _ours(run_id: str) -> list[dict[str, Any]]:
    """The notifications carrying any alert of the run."""
    return [
        notification
        for notification in _received()
        if any(alert["labels"].get("run_id") == run_id for alert in notification["alerts"])
    ]


def _in_alertmanager(run_id: str) -> list[tuple[str, str, str, list[str]]]:
    """What Alertmanager holds of the run: each alert's name, mode, state and inhibitors (a
    notification that never came was muted, or never arrived)."""
    alerts = httpx.get(f"{ALERTMANAGER_URL}/api/v2/alerts", timeout=10).json()
    return [
        (
            a["labels"]["alertname"],
            a["labels"]["mode"],
            a["status"]["state"],
            a["status"]["inhibitedBy"],
        )
        for a in alerts
        if a["labels"].get("run_id") == run_id
    ]


def _wait_for_ours(run_id: str) -> list[dict[str, Any]]:
    deadline = time.monotonic() + FIRST_NOTIFICATION_S
    while not (found := _ours(run_id)) and time.monotonic() < deadline:
        time.sleep(2)
    return found


@pytest.fixture(scope="module")
def receiver() -> None:
    """The receiver comes up with alertmanager in the test lab (`make test-e2e` starts it):
    without it, fail under CI, else skip loudly (as bench-runner/tests/prerequisites.py, which
    this directory cannot import)."""
    try:
        _received()
    except httpx.HTTPError as exc:
        reason = f"the webhook receiver at {RECEIVER_URL} ({exc}): start alertmanager too"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"prerequisite missing under CI=true: {reason}", pytrace=False)
        warnings.warn(f"SKIPPED, prerequisite missing: {reason}", stacklevel=2)
        pytest.skip(reason)


@pytest.fixture(scope="module")
def measured(receiver: None) -> BenchRun:
    """A real run of the default modes, kept out of the sinks: the test pushes it itself."""
    run = bench(PROFILE, "--no-sinks", name="alerts", iterations=5, warmup=1)
    assert run.exit_code == 0, run.output[-3000:]
    return run


def _regressed(measured: BenchRun) -> RunResult:
    """The measured run with each mode judged a regression, as verdicts/ judges one."""
    run = RunResult.model_validate_json(
        (RESULTS_DIR / measured.run_id / "results.json").read_text()
    )
    modes = []
    for mode, change in zip(run.modes, CHANGE_PCT, strict=False):
        p50 = mode.stats.p50_ms
        assert p50 is not None, mode.mode
        verdict = Verdict(
            verdict="regression",
            median_ms=p50,
            nights=6,
            baseline_nights=5,
            baseline_median_ms=p50 / (1 + change / 100),
            threshold_pct=5.0,
            change_pct=change,
            robust_z=8.0,
            rule="tonight",
        )
        modes.append(mode.model_copy(update={"verdict": verdict}))
    return run.model_copy(update={"modes": modes})


@pytest.fixture(scope="module")
def pushed(measured: BenchRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunResult]:
    run = _regressed(measured)
    gateway = Settings().pushgateway_url
    spool = Spool(Path(tmp_path_factory.mktemp("spool")))
    delivery = pushgateway.deliver_run(gateway, run, spool, run.run_id)
    assert delivery.delivered, delivery.detail
    yield run
    # The verdicts stand in the Pushgateway until the profile's next run: gone, so no later
    # test sees them fire (the bench route sends no "resolved").
    httpx.delete(f"{gateway}/metrics/job/{pushgateway.JOB}/profile/{PROFILE}", timeout=10)


def test_regressions_of_one_run_are_one_notification(pushed: RunResult) -> None:
    found = _wait_for_ours(pushed.run_id)
    assert len(found) == 1, (found, _in_alertmanager(pushed.run_id))
    alerts = found[0]["alerts"]
    assert {alert["labels"]["alertname"] for alert in alerts} == {"BenchModeRegressed"}
    assert sorted((a["labels"]["mode"], a["labels"]["client"]) for a in alerts) == sorted(
        (mode.mode, mode.client) for mode in pushed.modes
    )
    assert found[0]["groupLabels"] == {"family": "bench", "night": pushed.run_id}


def test_the_text_names_mode_client_profile_and_change(pushed: RunResult) -> None:
    found = _wait_for_ours(pushed.run_id)
    assert found, "no notification"
    summaries = {
        (alert["labels"]["mode"], alert["labels"]["client"]): alert["annotations"]["summary"]
        for alert in found[0]["alerts"]
    }
    for mode in pushed.modes:
        assert mode.verdict is not None
        assert mode.verdict.change_pct is not None
        summary = summaries[(mode.mode, mode.client)]
        assert summary == (
            f"{mode.mode} ({mode.client}) regressed {mode.verdict.change_pct:.1f} % against "
            f"the earlier nights in run {pushed.run_id} ({PROFILE})"
        )


def test_it_is_not_sent_again(pushed: RunResult) -> None:
    """Alertmanager flushes a group every group interval and sends only what changed: past two
    of them after the first notification, it is still the only one. A busy machine can only
    delay a repeat past the window, never make one up, so the count cannot fail spuriously."""
    first = _wait_for_ours(pushed.run_id)
    assert first, "no notification"
    deadline = time.monotonic() + 2 * GROUP_INTERVAL_S + 5
    while time.monotonic() < deadline:
        assert len(_ours(pushed.run_id)) == 1
        time.sleep(2)
    groups = httpx.get(f"{ALERTMANAGER_URL}/api/v2/alerts/groups", timeout=10).json()
    ours = [g for g in groups if g["labels"].get("night") == pushed.run_id]
    assert len(ours) == 1, ours
    assert len(ours[0]["alerts"]) == len(pushed.modes)
