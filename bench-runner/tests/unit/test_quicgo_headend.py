"""quic-go's HTTP/3 client of the head-end through goclient-h3 (modes/clients/quicgo_headend.py):
the job names the head-end, its UDP port, its credentials and the device; the head-end's answer
is read as the HTTPS client of the head-end reads it, against a fake goclient-h3."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bench_runner.modes import Mode
from bench_runner.modes.base import ClientRecovery, Relay, Target
from bench_runner.modes.clients.headend_answer import HeadendAnswer
from bench_runner.modes.clients.quicgo_h3 import GOCLIENT_H3_ENV
from bench_runner.modes.clients.quicgo_headend import headend_login
from bench_runner.modes.registry import find
from bench_runner.runner import run_iteration
from bench_runner.validation import IterationError
from fake_goclient import install

RELAY = Relay(
    "jumphost", 22, "jump", "jump-secret", "headend", 443, "automation", "api-secret", 8443
)
JUMP_ONLY = Relay("jumphost", 22, "jump", "jump-secret", "", 443, "", "")
TARGET = Target("198.18.100.129", 22, 443, "labops", "device-secret", relay=RELAY)
COMMANDS = ["show version", "show clock"]


def quic_go(name: str) -> Mode:
    found = find(name, "quic-go")
    assert found is not None
    return found


def test_the_program_logs_in_to_the_head_end_not_the_device() -> None:
    login = headend_login(TARGET)
    assert (login.host, login.username, login.password) == ("headend", "automation", "api-secret")
    assert quic_go("proxy-h3/keep-alive").port(TARGET) == 8443
    jump_only = Target("198.18.100.129", 22, 443, "labops", "device-secret", relay=JUMP_ONLY)
    with pytest.raises(ValueError, match="no head-end"):
        headend_login(jump_only)


def test_the_answer_must_be_json() -> None:
    with pytest.raises(IterationError, match=r"^head-end: the answer is not JSON"):
        HeadendAnswer.from_json("Bad Gateway")
    with pytest.raises(IterationError, match="not a JSON object"):
        HeadendAnswer.from_json("[]")


# --- the process, against a fake goclient-h3 ------------------------------------------------

FAKE = r"""
# The program must hold the head-end's credentials only.
assert "device-secret" not in os.environ.values(), "given the device's password"
def connection():
    return {"tls_version": 772, "cipher_suite": 4865, "group": 4588, "alpn": "h3",
            "resumed": False, "used_0rtt": False}
def answer(commands, statuses):
    return json.dumps({"device": job["device"], "ssh": "fresh", "reused": False,
                       "outputs": [f"output of {c}" for c in commands],
                       "exit_statuses": statuses,
                       "lan": {"connect_ms": 20.0, "commands_ms": 10.0, "round_trips": 11,
                               "bytes_sent": 1, "bytes_received": 2},
                       "headend_ms": 35.0})
print(json.dumps({"event": "ready", "ok": True, "client": "quic-go",
                  "version": "quic-go v0.65.0 (go1.26.8)"}), flush=True)
index = 0
for line in sys.stdin:
    commands = json.loads(line)["commands"]
    index += 1
    bodies, statuses = {
        1: ([answer(commands, [0 for _ in commands])], [200]),
        2: (['{"error": "unauthorized"}'], [401]),
        3: (["<html>bad gateway</html>"], [200]),
        4: ([answer(commands, [0, 1])], [200]),
        5: (["{}", "{}"], [200, 200]),
    }[index]
    print(json.dumps({"event": "iteration", "index": index, "start_ns": 1000 * index,
                      "end_ns": 1000 * index + 700, "wall_ns": 100_000_000, "ok": True,
                      "outputs": bodies, "statuses": statuses,
                      "connections": [connection()],
                      "recovery": {"sent_ack_eliciting": 6, "received_ack_eliciting": 7,
                                   "lost": 0, "initial_lost": 0, "probe_timeouts": 0,
                                   "spurious": 0, "missing_in": 0, "late_in": 0}}), flush=True)
print(json.dumps({"event": "done", "ok": True}), flush=True)
"""


@pytest.fixture
def fake_goclient_h3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return install(tmp_path, monkeypatch, GOCLIENT_H3_ENV, "quic-go v0.65.0 (go1.26.8)", FAKE)


def test_session_posts_to_the_head_end_and_reads_its_answer(fake_goclient_h3: Path) -> None:
    async def scenario() -> list[str | None]:
        errors = []
        async with quic_go("proxy-h3/fresh-ssh").session(TARGET) as session:
            timing, error = await run_iteration(session, COMMANDS, 5.0)
            assert error is None
            assert (timing.started_ns, timing.ended_ns, timing.wall_ms) == (1000, 1700, 100.0)
            assert session.take_lan_round_trips() == 11  # type: ignore[attr-defined]
            assert session.take_lan_round_trips() is None  # type: ignore[attr-defined]
            recovery = session.take_recovery()  # type: ignore[attr-defined]
            assert recovery == ClientRecovery(6, 7, 0, 0, 0, 0, 0, 0)
            # The iteration's 100 ms by hop, from the head-end's answer.
            assert session.phases.take() == {  # type: ignore[attr-defined]
                "wan_and_client": pytest.approx(65.0),
                "headend": pytest.approx(5.0),
                "lan_connect": pytest.approx(20.0),
                "lan_commands": pytest.approx(10.0),
            }
            for _ in range(4):
                errors.append((await run_iteration(session, COMMANDS, 5.0))[1])
                assert session.take_lan_round_trips() is None  # type: ignore[attr-defined]
            assert session.alpn.selected == {"h3": 5}  # type: ignore[attr-defined]
            assert session.handshakes.connections == 5  # type: ignore[attr-defined]
        return errors

    unauthorized, not_json, exit_status, two = asyncio.run(scenario())
    assert unauthorized == 'show version/show clock: HTTP 401: {"error": "unauthorized"}'
    assert (not_json or "").startswith("head-end: the answer is not JSON")
    assert exit_status == "show clock: exit status 1: output of show clock"
    assert two == "quic-go: 2 answers to one POST"
    logged: dict[str, Any] = json.loads(fake_goclient_h3.read_text())
    assert logged["argv"] == ["proxy-h3/fresh-ssh"]
    job = logged["job"]
    assert (job["host"], job["port"], job["device"]) == ("headend", 8443, "198.18.100.129")
    assert (logged["user"], logged["password"]) == ("automation", "api-secret")
    assert "api-secret" not in json.dumps(job)
