"""The h3 modes with quic-go: the real goclient-h3 (the runner image's) against the local
HTTP/3 stand-in of the device (h3_device.py, aioquic): what each mode opens and offers as the
server saw it, what the session reports, and that each refusal fails the iteration."""

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench_runner.modes import Mode, Target
from bench_runner.modes.clients.quicgo_h3 import QuicGoSession, goclient_h3_path
from bench_runner.modes.registry import find
from bench_runner.validation import IterationError
from h3_device import PASSWORD, USERNAME, H3Device, output_of, serving
from prerequisites import missing

COMMANDS = ["show version", "show clock", "show ip interface brief"]
TIMEOUT_S = 30.0
ANSWERS = [output_of(command) for command in COMMANDS]
PER_CONNECTION = {"tls_handshake", "send_request", "receive_headers", "receive_body", "close"}


@pytest.fixture(autouse=True)
def _goclient_h3() -> None:
    if not os.access(goclient_h3_path(), os.X_OK):
        missing(f"goclient-h3 at {goclient_h3_path()} (the runner image builds it)")


def _quic_go(name: str) -> Mode:
    mode = find(name, "quic-go")
    assert mode is not None
    return mode


@dataclass(frozen=True)
class Run:
    errors: list[str | None]
    outputs: list[list[str]]
    phases: dict[str, float]
    alpn: dict[str | None, int]
    resumed: dict[str, int]
    early_data_accepted: int


def _run(name: str, device: H3Device, directory: Path, count: int = 2) -> Run:
    """``count`` iterations of COMMANDS after the session opened (not measured)."""

    async def measure() -> Run:
        errors: list[str | None] = []
        outputs = []
        async with (
            serving(device, directory),
            _quic_go(name).session(
                Target("127.0.0.1", 22, 443, USERNAME, PASSWORD, h3_port=device.port)
            ) as session,
        ):
            assert isinstance(session, QuicGoSession)
            for _ in range(count):
                try:
                    async with asyncio.timeout(TIMEOUT_S):
                        outputs.append(await session.run_iteration(COMMANDS))
                    errors.append(None)
                except IterationError as exc:
                    errors.append(str(exc))
            phases = session.phases.take()
        return Run(
            errors,
            outputs,
            phases,
            dict(session.alpn.selected),
            dict(session.handshakes.parameters.get("tls_resumed", {})),
            session.handshakes.early_data_accepted,
        )

    return asyncio.run(measure())


def test_fresh_conn_opens_a_full_handshake_per_command(tmp_path: Path) -> None:
    device = H3Device()
    run = _run("h3/fresh-conn", device, tmp_path)
    assert run.errors == [None, None]
    assert run.outputs == [ANSWERS, ANSWERS]
    assert device.connections == 2 * len(COMMANDS)
    assert not any(handshake.resumed for handshake in device.handshakes)
    assert device.paths(early=True) == []
    assert set(run.phases) == PER_CONNECTION
    assert run.alpn == {"h3": 2 * len(COMMANDS)}
    assert run.resumed == {"false": 2 * len(COMMANDS)}


def test_resumed_resumes_every_connection_without_early_data(tmp_path: Path) -> None:
    device = H3Device()
    run = _run("h3/resumed", device, tmp_path)
    assert run.errors == [None, None]
    # The first connection fetched the ticket before the iterations.
    assert [handshake.resumed for handshake in device.handshakes] == [False] + [True] * 6
    assert device.paths(early=True) == []
    assert set(run.phases) == PER_CONNECTION
    assert run.resumed == {"false": 1, "true": 6}
    assert run.early_data_accepted == 0


def test_0rtt_sends_each_get_as_early_data_the_server_accepts(tmp_path: Path) -> None:
    device = H3Device()
    run = _run("h3/0rtt", device, tmp_path)
    assert run.errors == [None, None]
    assert run.outputs == [ANSWERS, ANSWERS]
    # Accepted on every connection after the ticket's. That each GET itself travelled as
    # early data is proven where it holds by construction (goclient's Go tests hold the
    # server's flight); here it depends on the client writing before the flight returns.
    assert [h.early_data_accepted for h in device.handshakes] == [False] + [True] * 6
    assert run.early_data_accepted == 2 * len(COMMANDS)
    # The handshake overlaps the request: no phase of its own.
    assert set(run.phases) == PER_CONNECTION - {"tls_handshake"}


def test_kept_connection_modes_open_one_connection(tmp_path: Path) -> None:
    joined = "/admin/exec/show+version/show+clock/show+ip+interface+brief"
    shapes = {
        "h3/keep-alive": ([ANSWERS, ANSWERS], [_exec(c) for c in COMMANDS] * 2),
        "h3/batch-post": ([["".join(ANSWERS)]] * 2, [joined] * 2),
        "h3/multi-cmd": ([ANSWERS, ANSWERS], None),
    }
    for name, (outputs, paths) in shapes.items():
        # multi-cmd: the stand-in answers nothing until every GET of the iteration waits.
        device = H3Device(hold_until=len(COMMANDS) if name == "h3/multi-cmd" else 1)
        run = _run(name, device, tmp_path)
        assert run.errors == [None, None], name
        assert run.outputs == outputs, name
        assert device.connections == 1, name
        if paths is not None:
            assert device.paths() == paths, name
        assert run.alpn == {"h3": 1}, name
        assert run.phases.keys() <= PER_CONNECTION - {"tls_handshake", "close"}, name


def _exec(command: str) -> str:
    return "/admin/exec/" + command.replace(" ", "+")


def test_refusals_fail_the_iteration(tmp_path: Path) -> None:
    no_resumption = _run("h3/resumed", H3Device(resume=False), tmp_path, count=1)
    assert no_resumption.errors[0] is not None
    assert "TLS session not resumed" in no_resumption.errors[0]
    too_early = _run("h3/0rtt", H3Device(too_early=True), tmp_path, count=1)
    assert too_early.errors == ["show version: HTTP 425 Too Early (refused in early data)"]
    no_early_data = _run("h3/0rtt", H3Device(resume=False), tmp_path, count=1)
    assert no_early_data.errors[0] is not None
    assert "0-RTT" in no_early_data.errors[0]
