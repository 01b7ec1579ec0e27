"""The h3 modes with aioquic against a local HTTP/3 stand-in of the device (h3_device.py):
what each mode opens, what it offers (a ticket, early data), what the server saw, and that
each refusal (no resumption, no early data, 425, a lost connection) fails the iteration."""

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench_runner.alpn import AlpnReportingSession
from bench_runner.modes import Mode, Target, select_modes
from bench_runner.modes.registry import find
from bench_runner.phases import PhasedSession
from bench_runner.runner import run_iteration
from h3_device import PASSWORD, USERNAME, H3Device, output_of, serving

COMMANDS = ["show version", "show clock", "show ip interface brief"]
TIMEOUT_S = 30.0
PER_CONNECTION = {"tls_handshake", "send_request", "receive_headers", "receive_body", "close"}
ON_KEPT_CONNECTION = {"send_request", "receive_headers", "receive_body"}


@dataclass(frozen=True)
class Iteration:
    outputs: list[str]
    phases: dict[str, float]
    wall_ms: float


def _aioquic(name: str) -> Mode:
    mode = find(name, "aioquic")
    assert mode is not None
    return mode


def _target(device: H3Device, password: str = PASSWORD) -> Target:
    return Target("127.0.0.1", 22, 443, USERNAME, password, h3_port=device.port)


def _exec(*commands: str) -> str:
    return "/admin/exec/" + "/".join(command.replace(" ", "+") for command in commands)


def _iterations(
    name: str, device: H3Device, directory: Path, count: int = 2
) -> tuple[list[Iteration], dict[str | None, int]]:
    """``count`` iterations of COMMANDS after the session opened (unmeasured, as the
    runner does: phases taken before each), and the ALPN protocols the session noted."""

    async def measure() -> tuple[list[Iteration], dict[str | None, int]]:
        iterations = []
        async with (
            serving(device, directory),
            _aioquic(name).session(_target(device)) as session,
        ):
            assert isinstance(session, AlpnReportingSession)
            phases = session.phases if isinstance(session, PhasedSession) else None
            for _ in range(count):
                if phases is not None:
                    phases.take()
                started = time.perf_counter()
                outputs = await session.run_iteration(COMMANDS)
                wall_ms = (time.perf_counter() - started) * 1000
                iterations.append(
                    Iteration(outputs, phases.take() if phases is not None else {}, wall_ms)
                )
            alpn = dict(session.alpn.selected)
        return iterations, alpn

    return asyncio.run(measure())


def _error(
    name: str, device: H3Device, directory: Path, commands: Sequence[str] = COMMANDS, **kw: str
) -> str | None:
    """The failure the runner records for one iteration after the session opened."""

    async def one() -> str | None:
        async with (
            serving(device, directory),
            _aioquic(name).session(_target(device, **kw)) as session,
        ):
            return (await run_iteration(session, commands, TIMEOUT_S))[1]

    return asyncio.run(one())


def _answers() -> list[str]:
    return [output_of(command) for command in COMMANDS]


def test_fresh_conn_opens_a_connection_per_command_without_a_ticket(tmp_path: Path) -> None:
    device = H3Device()
    iterations, alpn = _iterations("h3/fresh-conn", device, tmp_path)
    assert [i.outputs for i in iterations] == [_answers()] * 2
    assert device.connections == 2 * len(COMMANDS)
    assert device.paths() == [_exec(command) for command in COMMANDS] * 2
    assert not any(h.resumed for h in device.handshakes)
    assert device.tickets == {}  # no ticket asked for: no psk_key_exchange_modes offered
    assert alpn == {"h3": 2 * len(COMMANDS)}
    for iteration in iterations:
        assert set(iteration.phases) == PER_CONNECTION
        assert sum(iteration.phases.values()) <= iteration.wall_ms


def test_keep_alive_and_batch_keep_one_connection(tmp_path: Path) -> None:
    device = H3Device()
    iterations, alpn = _iterations("h3/keep-alive", device, tmp_path)
    assert [i.outputs for i in iterations] == [_answers()] * 2
    assert device.connections == 1
    assert device.paths() == [_exec(command) for command in COMMANDS] * 2
    assert alpn == {"h3": 1}
    assert all(set(i.phases) == ON_KEPT_CONNECTION for i in iterations)
    assert all(sum(i.phases.values()) <= i.wall_ms for i in iterations)

    device = H3Device()
    iterations, _ = _iterations("h3/batch-post", device, tmp_path)
    assert [i.outputs for i in iterations] == [["".join(_answers())]] * 2
    assert device.connections == 1
    assert device.paths() == [_exec(*COMMANDS)] * 2


def test_multi_cmd_sends_every_request_before_any_answer(tmp_path: Path) -> None:
    # The stand-in answers nothing until every command's request waits on the connection:
    # a client sending one after another would time out instead.
    device = H3Device(hold_until=len(COMMANDS))
    iterations, alpn = _iterations("h3/multi-cmd", device, tmp_path)
    assert [i.outputs for i in iterations] == [_answers()] * 2
    assert device.connections == 1
    assert alpn == {"h3": 1}
    assert all(i.phases == {} for i in iterations)  # overlapping steps are not phases


def test_resumed_offers_the_ticket_without_early_data(tmp_path: Path) -> None:
    device = H3Device()
    iterations, _ = _iterations("h3/resumed", device, tmp_path)
    assert [i.outputs for i in iterations] == [_answers()] * 2
    # The session's first connection (unmeasured) is issued the first ticket.
    assert device.connections == 1 + 2 * len(COMMANDS)
    first, *measured = device.handshakes
    assert not first.resumed
    assert all(h.resumed and not h.early_data_accepted for h in measured)
    assert device.paths(early=True) == []
    assert all(set(i.phases) == PER_CONNECTION for i in iterations)


def test_0rtt_sends_every_get_as_early_data(tmp_path: Path) -> None:
    device = H3Device()
    iterations, _ = _iterations("h3/0rtt", device, tmp_path)
    assert [i.outputs for i in iterations] == [_answers()] * 2
    assert device.paths(early=True) == [_exec(command) for command in COMMANDS] * 2
    _, *measured = device.handshakes
    assert len(measured) == 2 * len(COMMANDS)
    assert all(h.resumed and h.early_data_accepted for h in measured)
    for iteration in iterations:
        # The handshake completes inside the request's round trip: no phase of its own.
        assert set(iteration.phases) == PER_CONNECTION - {"tls_handshake"}
        assert sum(iteration.phases.values()) <= iteration.wall_ms


def test_refused_resumption_or_early_data_fails_the_iteration(tmp_path: Path) -> None:
    # A server that resumes nothing: the session opens (a full handshake issues a ticket),
    # then every resuming connection falls back to a full handshake.
    for name in ("h3/resumed", "h3/0rtt"):
        device = H3Device(resume=False)
        assert _error(name, device, tmp_path) == (
            "show version: TLS session not resumed (ticket not accepted)"
        )
    device = H3Device(too_early=True)
    assert _error("h3/0rtt", device, tmp_path) == (
        "show version: HTTP 425 Too Early: the server refused the early data"
    )


def test_status_and_output_are_checked(tmp_path: Path) -> None:
    for name in ("h3/fresh-conn", "h3/keep-alive", "h3/multi-cmd"):
        assert _error(name, H3Device(), tmp_path, password="wrong") == (
            "show version: HTTP 401: Unauthorized"
        )
    assert _error("h3/keep-alive", H3Device(), tmp_path, ["show nonsense"]) == (
        "show nonsense: % Invalid input detected at '^' marker."
    )


def test_a_lost_connection_fails_its_iterations_not_the_session(tmp_path: Path) -> None:
    async def run() -> list[str | None]:
        device = H3Device()
        async with (
            serving(device, tmp_path),
            _aioquic("h3/keep-alive").session(_target(device)) as session,
        ):
            errors = [(await run_iteration(session, COMMANDS, TIMEOUT_S))[1]]
            device.close_connections()
            await asyncio.sleep(0.1)  # the CONNECTION_CLOSE crosses loopback
            for _ in range(2):
                errors.append((await run_iteration(session, COMMANDS, TIMEOUT_S))[1])
        return errors

    lost = "QUIC connection closed (error 0x0: device restarted)"
    assert asyncio.run(run()) == [None, lost, lost]


def test_h3_modes_with_their_clients() -> None:
    selection = select_modes(["h3/keep-alive", "h3/fresh-conn"], ["floor", "aioquic", "curl"])
    assert [(m.name, m.client) for m in selection.modes] == [
        ("h3/keep-alive", "quic-go"),
        ("h3/keep-alive", "aioquic"),
        ("h3/fresh-conn", "quic-go"),
        ("h3/fresh-conn", "aioquic"),
        ("h3/fresh-conn", "curl"),
    ]
    assert [(e.mode, e.client) for e in selection.not_applicable] == [("h3/keep-alive", "curl")]
    # An HTTPS-only client asked for an h3 mode is not applicable, with its reason.
    selection = select_modes(["h3/0rtt"], ["httpx", "requests", "python-ssl"])
    assert selection.modes == []
    reasons = {e.client: e.reason for e in selection.not_applicable}
    assert set(reasons) == {"httpx", "requests", "python-ssl"}
    assert "no HTTP/3" in reasons["httpx"]
    assert "no HTTP/3" in reasons["requests"]
    assert "no QUIC" in reasons["python-ssl"]
