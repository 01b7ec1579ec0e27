"""quic-go's HTTP/3 client through goclient-h3 (modes/clients/quicgo_h3.py): the responses
checked as the HTTPS clients check theirs, what each connection negotiated, and the process
protocol against a fake goclient-h3."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bench_runner.modes import Mode
from bench_runner.modes.base import ClientRecovery, Target
from bench_runner.modes.clients.goclient_process import (
    GoClientError,
    IterationReport,
    Negotiated,
    iteration_report,
    program_version,
)
from bench_runner.modes.clients.quicgo_h3 import (
    GOCLIENT_H3_ENV,
    QuicHandshakes,
    checked_outputs,
)
from bench_runner.modes.registry import find
from bench_runner.runner import run_iteration
from bench_runner.validation import IterationError
from fake_goclient import install

TARGET = Target("192.0.2.1", 22, 443, "labops", "s3cret-value", h3_port=8443)


def quic_go(name: str) -> Mode:
    found = find(name, "quic-go")
    assert found is not None
    return found


def _report(**fields: Any) -> IterationReport:
    return IterationReport(1, False, 1, 2, 0.1, **{"ok": True, "error": None, **fields})


def test_each_response_must_be_200() -> None:
    commands = ["show version", "show clock"]
    outputs = ["Cisco IOS XE", "12:00:00"]
    assert checked_outputs(_report(outputs=outputs, statuses=[200, 200]), commands) == outputs
    batch = _report(outputs=["both"], statuses=[200])
    assert checked_outputs(batch, commands) == ["both"]
    too_early = _report(outputs=outputs, statuses=[200, 425])
    with pytest.raises(IterationError, match=r"^show clock: HTTP 425 Too Early"):
        checked_outputs(too_early, commands)
    denied = _report(outputs=["Unauthorized\nmore"], statuses=[401])
    with pytest.raises(IterationError, match=r"^show version/show clock: HTTP 401: Unauthorized$"):
        checked_outputs(denied, commands)
    with pytest.raises(IterationError, match=r"^quic-go: dial 192.0.2.1:8443: timeout$"):
        checked_outputs(_report(ok=False, error="dial 192.0.2.1:8443: timeout"), commands)


def test_a_report_that_does_not_add_up_is_an_error() -> None:
    with pytest.raises(GoClientError, match="2 statuses for 1"):
        checked_outputs(_report(outputs=["a"], statuses=[200, 200]), ["show a"])
    with pytest.raises(GoClientError, match="2 responses to 3"):
        checked_outputs(_report(outputs=["a", "b"], statuses=[200, 200]), ["a", "b", "c"])


def _connection(**fields: Any) -> Negotiated:
    base: dict[str, Any] = {
        "tls_version": 0x0304,
        "cipher_suite": 0x1301,
        "group": 0x11EC,
        "alpn": "h3",
        "resumed": False,
        "used_0rtt": False,
    }
    return Negotiated(**{**base, **fields})


def test_an_incomplete_recovery_report_is_an_error() -> None:
    line = {"event": "iteration", "index": 1, "start_ns": 1, "end_ns": 2, "wall_ns": 1,
            "ok": True, "recovery": {"lost": 1}}  # fmt: skip
    with pytest.raises(GoClientError, match="incomplete iteration report"):
        iteration_report(line, "quic-go")
    assert iteration_report({**line, "recovery": None}, "quic-go").recovery is None


def test_handshakes_are_named_as_the_wire_decoder_names_them() -> None:
    log = QuicHandshakes()
    log.note(_connection())
    log.note(_connection(group=0x001D, resumed=True, used_0rtt=True))
    log.note(_connection(group=None, resumed=True))
    assert log.connections == 3
    assert log.parameters == {
        "tls_version": {"TLSv1.3": 3},
        "tls_cipher": {"TLS_AES_128_GCM_SHA256": 3},
        "tls_group": {"X25519MLKEM768": 1, "x25519": 1},
        "tls_resumed": {"false": 1, "true": 2},
    }
    assert log.early_data_accepted == 1


# --- the process, against a fake goclient-h3 ------------------------------------------------

FAKE = r"""
def connection(resumed):
    return {"tls_version": 772, "cipher_suite": 4865, "group": 4588, "alpn": "h3",
            "resumed": resumed, "used_0rtt": resumed}
# The connection that fetched the ticket, before ready.
ready = {"event": "ready", "ok": True, "client": "quic-go",
         "version": "quic-go v0.65.0 (go1.26.8)", "connections": [connection(False)]}
print(json.dumps(ready), flush=True)
index = 0
for line in sys.stdin:
    step = json.loads(line)
    index += 1
    statuses = [200 for _ in step["commands"]]
    if index == 2:
        statuses[-1] = 425
    print(json.dumps({"event": "iteration", "index": index, "start_ns": 1000 * index,
                      "end_ns": 1000 * index + 700, "wall_ns": 700, "ok": True,
                      "outputs": [f"output of {c}" for c in step["commands"]],
                      "statuses": statuses,
                      "connections": [connection(True) for _ in step["commands"]],
                      "phases_ms": {"send_request": 0.25, "receive_headers": 0.5},
                      "recovery": {"sent_ack_eliciting": 4 * index, "received_ack_eliciting": 5,
                                   "lost": index - 1, "initial_lost": 0, "probe_timeouts": 1,
                                   "spurious": 0, "missing_in": 2, "late_in": 1}}), flush=True)
print(json.dumps({"event": "done", "ok": True}), flush=True)
"""


@pytest.fixture
def fake_goclient_h3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return install(tmp_path, monkeypatch, GOCLIENT_H3_ENV, "quic-go v0.65.0 (go1.26.8)", FAKE)


def test_session_runs_the_rows_mode_on_the_udp_port(fake_goclient_h3: Path) -> None:
    async def scenario() -> list[tuple[Any, str | None]]:
        results = []
        async with quic_go("h3/0rtt").session(TARGET) as session:
            for index in (1, 2):
                results.append(await run_iteration(session, ["show version", "show clock"], 5.0))
                recovery = session.take_recovery()  # type: ignore[attr-defined]
                assert recovery == ClientRecovery(4 * index, 5, index - 1, 0, 1, 0, 2, 1)
                assert session.take_recovery() is None  # type: ignore[attr-defined]
            phases = session.phases.take()  # type: ignore[attr-defined]
            assert phases == {"send_request": pytest.approx(0.5), "receive_headers": 1.0}
            # The ticket's connection and the four the iterations opened (the failed one's too).
            assert session.alpn.selected == {"h3": 5}  # type: ignore[attr-defined]
            handshakes = session.handshakes  # type: ignore[attr-defined]
            assert handshakes.connections == 5
            assert handshakes.parameters["tls_resumed"] == {"false": 1, "true": 4}
            assert handshakes.early_data_accepted == 4
        return results

    (first, ok), (second, error) = asyncio.run(scenario())
    assert (first.started_ns, first.ended_ns, first.wall_ms) == (1000, 1700, 0.0007)
    assert ok is None
    assert second.started_ns == 2000
    assert error == "show clock: HTTP 425 Too Early (refused in early data)"
    logged = json.loads(fake_goclient_h3.read_text())
    assert logged["argv"] == ["h3/0rtt"]
    assert (logged["job"]["host"], logged["job"]["port"]) == ("192.0.2.1", 8443)
    assert logged["job"]["timeout_s"] == 60.0
    assert (logged["user"], logged["password"]) == ("labops", "s3cret-value")
    assert "s3cret-value" not in json.dumps(logged["job"])


def test_version_from_the_program(fake_goclient_h3: Path) -> None:
    program_version.cache_clear()
    assert quic_go("h3/fresh-conn").client_version() == "quic-go v0.65.0 (go1.26.8)"
    program_version.cache_clear()


def test_missing_program(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(GOCLIENT_H3_ENV, str(tmp_path / "absent"))
    program_version.cache_clear()
    assert quic_go("h3/keep-alive").client_version() == "unknown"

    async def scenario() -> None:
        async with quic_go("h3/keep-alive").session(TARGET):
            raise AssertionError("opened")

    with pytest.raises(FileNotFoundError, match="absent"):
        asyncio.run(scenario())
