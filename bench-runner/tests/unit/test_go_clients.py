"""The Go client adapter (modes/clients/scrapligo.py, on goclient_process.py): the program's
lines, their validation, the process protocol against a fake goclient, and where scrapligo is
not applicable."""

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from bench_runner.modes import Mode, select_modes
from bench_runner.modes.base import Target
from bench_runner.modes.catalog import CLIENT_SCOPE
from bench_runner.modes.clients.goclient_process import (
    PASSWORD_ENV,
    USERNAME_ENV,
    GoClientError,
    IterationReport,
    Reply,
    iteration_report,
    parse_line,
    program_version,
)
from bench_runner.modes.clients.scrapligo import GOCLIENT_ENV, outputs_to_validate
from bench_runner.modes.registry import find
from bench_runner.runner import run_iteration
from bench_runner.validation import IterationError
from fake_goclient import install


def scrapligo(mode: str) -> Mode:
    found = find(mode, "scrapligo")
    assert found is not None
    return found


TARGET = Target("192.0.2.1", 22, 443, "labops", "s3cret-value", netconf_port=830)


def _line(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "event": "iteration",
        "index": 1,
        "start_ns": 1_800_000_000_000_000_000,
        "end_ns": 1_800_000_000_012_500_000,
        "wall_ns": 12_500_000,
        "ok": True,
    }
    return {**base, **fields}


def _reply(message_id: int, body: str, expect: str = "<data") -> Reply:
    text = f'<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="{message_id}">'
    return Reply(message_id, expect, text + body + "</rpc-reply>")


def test_parse_line_needs_a_json_object_with_an_event() -> None:
    assert parse_line(b'{"event":"ready","version":"scrapligo v1.4.3 (go1.26.0)"}\n', "scrapligo")[
        "event"
    ]
    for bad in (b"panic: runtime error\n", b"[1, 2]\n", b'{"index": 1}\n'):
        with pytest.raises(GoClientError, match="scrapligo: "):
            parse_line(bad, "scrapligo")


def test_iteration_report_fields() -> None:
    report = iteration_report(
        _line(outputs=["Cisco IOS XE"], phases_ms={"connect": 3.5}, warmup=True), "scrapligo"
    )
    assert report.started_ns == 1_800_000_000_000_000_000
    assert report.ended_ns - report.started_ns == 12_500_000
    assert report.wall_ms == pytest.approx(12.5)
    assert report.warmup
    assert report.ok
    assert report.error is None
    assert report.outputs == ["Cisco IOS XE"]
    assert report.phases_ms == {"connect": 3.5}


def test_iteration_report_errors() -> None:
    with pytest.raises(GoClientError, match="scrapligo: session: open: EOF"):
        iteration_report({"event": "error", "error": "session: open: EOF"}, "scrapligo")
    with pytest.raises(GoClientError, match="expected an iteration"):
        iteration_report({"event": "done", "ok": True}, "scrapligo")
    with pytest.raises(GoClientError, match="incomplete"):
        iteration_report({"event": "iteration", "index": 1, "ok": True}, "scrapligo")


def _report(**fields: Any) -> IterationReport:
    return IterationReport(1, False, 1, 2, 0.1, **{"ok": True, "error": None, **fields})


def test_cli_outputs_are_validated_by_the_runner() -> None:
    assert outputs_to_validate(_report(outputs=["a", "b"])) == ["a", "b"]
    with pytest.raises(IterationError, match=r"^scrapligo: open: dial tcp: i/o timeout$"):
        outputs_to_validate(_report(ok=False, error="open: dial tcp: i/o timeout"))


def test_netconf_replies_are_checked_like_the_runners_clients() -> None:
    good = [_reply(101, "<data>x</data>"), _reply(102, "<data>y</data>")]
    assert len(outputs_to_validate(_report(replies=good))) == 2
    wrong_id = Reply(103, "<data", good[0].text)
    with pytest.raises(IterationError, match="expected 103"):
        outputs_to_validate(_report(replies=[wrong_id]))
    error = _reply(104, "<rpc-error><error-message>locked</error-message></rpc-error>")
    with pytest.raises(IterationError, match="rpc-error: locked"):
        outputs_to_validate(_report(replies=[error]))
    edits = [_reply(105, "<ok/>", "<ok"), _reply(106, "<ok/>", "<ok")]
    combined = outputs_to_validate(_report(replies=edits))
    assert len(combined) == 1
    assert combined[0].count("<ok/>") == 2


def test_scrapligo_modes_and_not_applicable() -> None:
    names = ["ssh/fresh-conn", "ssh/reuse-conn", "ssh/batch-exec", "ssh/pty-fresh"]
    names += ["ssh/pty-reuse", "netconf/fresh-session", "netconf/reuse-session"]
    names += ["netconf/batch-rpc", "netconf/edit-commit", "https/keep-alive"]
    selection = select_modes(names, ["scrapligo"])
    assert [(m.name, m.client) for m in selection.modes] == [
        ("ssh/pty-fresh", "scrapligo"),
        ("netconf/fresh-session", "scrapligo"),
        ("netconf/reuse-session", "scrapligo"),
        ("netconf/edit-commit", "scrapligo"),
    ]
    assert [entry.mode for entry in selection.not_applicable] == [
        "ssh/fresh-conn",
        "ssh/reuse-conn",
        "ssh/batch-exec",
        "ssh/pty-reuse",
        "netconf/batch-rpc",
    ]
    assert all(
        e.reason == f"scrapligo: {CLIENT_SCOPE['scrapligo']}" for e in selection.not_applicable
    )
    assert all(not mode.floor for mode in selection.modes)


# --- the process, against a fake goclient ---------------------------------------------------

FAKE = r"""
if os.environ.get("FAKE_FAIL_OPEN"):
    print(json.dumps({"event": "error", "ok": False, "error": "session: open: auth failed"}))
    sys.exit(1)
ready = {"event": "ready", "ok": True, "version": "scrapligo v1.4.3 (go1.26.0)"}
print(json.dumps(ready), flush=True)
index = 0
for line in sys.stdin:
    step = json.loads(line)
    index += 1
    if os.environ.get("FAKE_HANG"):
        import time; time.sleep(30)
    outputs = [f"output of {c}" for c in step["commands"]]
    if index == 2:
        outputs[0] = "% Invalid input detected at '^' marker."
    print(json.dumps({"event": "iteration", "index": index, "start_ns": 1000 * index,
                      "end_ns": 1000 * index + 700, "wall_ns": 700, "ok": True,
                      "outputs": outputs, "phases_ms": {"commands": 0.5}}), flush=True)
print(json.dumps({"event": "done", "ok": True}), flush=True)
"""


@pytest.fixture
def fake_goclient(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return install(tmp_path, monkeypatch, GOCLIENT_ENV, "scrapligo v1.4.3 (go1.26.0)", FAKE)


def test_session_paces_the_program_and_uses_its_timing(fake_goclient: Path) -> None:
    async def scenario() -> list[tuple[Any, str | None]]:
        results = []
        async with scrapligo("ssh/pty-fresh").session(TARGET) as session:
            for _ in range(2):
                results.append(await run_iteration(session, ["show version", "show clock"], 5.0))
            phases = session.phases.take()  # type: ignore[attr-defined]
            assert phases == {"commands": pytest.approx(1.0)}  # milliseconds, two iterations
        return results

    (first, ok), (second, error) = asyncio.run(scenario())
    # The program's span and duration, not the runner's (which include the pipe).
    assert (first.started_ns, first.ended_ns, first.wall_ms) == (1000, 1700, 0.0007)
    assert ok is None
    assert second.started_ns == 2000
    assert error == "show version: % Invalid input detected at '^' marker."
    logged = json.loads(fake_goclient.read_text())
    assert logged["argv"] == ["ssh/pty-fresh"]
    assert logged["job"]["port"] == 22
    assert logged["job"]["paced"] is True
    assert logged["job"]["username_env"] == USERNAME_ENV
    assert logged["job"]["password_env"] == PASSWORD_ENV
    # Credentials travel in the child's environment only.
    assert (logged["user"], logged["password"]) == ("labops", "s3cret-value")
    assert "s3cret-value" not in json.dumps(logged["job"]) + " ".join(logged["argv"])


def test_netconf_job_carries_the_parameters(fake_goclient: Path) -> None:
    async def scenario() -> None:
        async with scrapligo("netconf/reuse-session").with_netconf("1.0", 4096).session(TARGET):
            pass

    asyncio.run(scenario())
    logged = json.loads(fake_goclient.read_text())
    assert logged["argv"] == ["netconf/reuse-session"]
    assert logged["job"]["port"] == 830
    assert (logged["job"]["framing"], logged["job"]["reply_bytes"]) == ("1.0", 4096)


def test_a_session_that_fails_to_open_is_an_error(
    fake_goclient: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_FAIL_OPEN", "1")

    async def scenario() -> None:
        async with scrapligo("netconf/edit-commit").session(TARGET):
            raise AssertionError("opened")

    with pytest.raises(GoClientError, match="scrapligo: session: open: auth failed"):
        asyncio.run(scenario())


def test_a_timed_out_iteration_stops_the_program(
    fake_goclient: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_HANG", "1")

    async def scenario() -> tuple[str | None, str | None]:
        async with scrapligo("ssh/pty-fresh").session(TARGET) as session:
            _, first = await run_iteration(session, ["show version"], 0.5)
            _, second = await run_iteration(session, ["show version"], 0.5)
        return first, second

    first, second = asyncio.run(scenario())
    assert first == "timed out after 0.5 s"
    assert second is not None
    assert "stopped earlier" in second


def test_missing_program(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(GOCLIENT_ENV, str(tmp_path / "absent"))
    assert scrapligo("ssh/pty-fresh").client_version() == "unknown"

    async def scenario() -> None:
        async with scrapligo("ssh/pty-fresh").session(TARGET):
            raise AssertionError("opened")

    # An OSError: the runner records it as the mode's session error.
    with pytest.raises(FileNotFoundError, match="absent"):
        asyncio.run(scenario())


def test_version_from_the_program(fake_goclient: Path) -> None:
    program_version.cache_clear()
    assert scrapligo("ssh/pty-fresh").client_version() == "scrapligo v1.4.3 (go1.26.0)"
    program_version.cache_clear()
    assert os.environ[GOCLIENT_ENV]
