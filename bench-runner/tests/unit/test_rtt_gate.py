import asyncio

import pytest

from bench_runner import rtt_probe
from bench_runner.rtt_probe import RttProbe, check_rtt, probe_rtt, rtt_tolerance_ms


@pytest.mark.parametrize(
    ("configured", "tolerance"),
    [(0.0, 1.0), (2.0, 1.0), (10.0, 1.0), (30.0, 3.0), (70.0, 7.0), (600.0, 60.0)],
)
def test_tolerance_is_ten_percent_but_at_least_one_ms(configured: float, tolerance: float) -> None:
    assert rtt_tolerance_ms(configured) == pytest.approx(tolerance)


@pytest.mark.parametrize(
    ("configured", "verified", "passed"),
    [
        (30.0, 30.4, True),
        (30.0, 33.0, True),  # exactly at the tolerance
        (30.0, 33.01, False),
        (30.0, 26.9, False),  # too little delay is as wrong as too much
        (0.0, 0.3, True),
        (0.0, 1.2, False),
        (2.0, 2.9, True),
    ],
)
def test_gate(configured: float, verified: float, passed: bool) -> None:
    check = check_rtt(configured, verified, attempts=2)
    assert check.passed is passed
    assert check.applies
    assert check.attempts == 2
    assert check.deviation_ms == pytest.approx(verified - configured)
    assert (check.reason is None) is passed
    if not passed:
        assert f"configured {configured:g} ms" in (check.reason or "")


def test_unverified_rtt_fails_and_unmanaged_targets_pass() -> None:
    unverified = check_rtt(30.0, None)
    assert not unverified.passed
    assert "probe failed" in (unverified.reason or "")
    unmanaged = check_rtt(0.0, 48.0, applies=False)
    assert unmanaged.passed
    assert not unmanaged.applies
    assert unmanaged.deviation_ms is None


def test_gate_checks_the_delay_added_over_the_unimpaired_reference() -> None:
    # The lab's own round trip under load (0.9 ms) is not delay netem added.
    local = check_rtt(0.0, 1.4, reference_rtt_ms=0.9)
    assert local.passed
    assert local.added_rtt_ms == pytest.approx(0.5)
    regional = check_rtt(30.0, 31.2, reference_rtt_ms=0.8)
    assert regional.passed
    assert regional.deviation_ms == pytest.approx(0.4)
    missing = check_rtt(30.0, 1.1, reference_rtt_ms=0.9)  # delay not applied
    assert not missing.passed
    assert "minus 0.90 ms unimpaired" in (missing.reason or "")


def test_probe_with_reference_port() -> None:
    async def scenario() -> tuple[float, RttProbe]:
        server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        reference = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reference_port = reference.sockets[0].getsockname()[1]
        async with server, reference:
            return await probe_rtt("127.0.0.1", port, samples=3, reference_port=reference_port)

    fastest, probe = asyncio.run(scenario())
    assert 0 < fastest < 100
    assert probe.samples == 3
    assert probe.reference_port is not None
    assert probe.reference_rtt_ms is not None
    assert 0 < probe.reference_rtt_ms < 100


def test_the_probe_keeps_the_fastest_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    """A busy machine lengthens connects, never shortens them: the fastest is the path's."""
    scripted = iter([37.7, 1.4, 31.2, 0.9, 36.0, 2.2])  # port, reference, port, reference, ...
    taken: list[int] = []

    async def connect(host: str, port: int) -> float:
        taken.append(port)
        return next(scripted)

    monkeypatch.setattr(rtt_probe, "tcp_connect_ms", connect)
    fastest, probe = asyncio.run(probe_rtt("127.0.0.1", 22, samples=3, reference_port=9100))
    assert (fastest, probe.reference_rtt_ms) == (31.2, 0.9)
    assert taken == [22, 9100] * 3


def test_jitter_lets_the_fastest_connect_be_that_much_faster() -> None:
    tolerance = rtt_tolerance_ms(30.0)
    assert check_rtt(30.0, 30.0 - tolerance - 4.0, jitter_ms=5.0).passed
    assert not check_rtt(30.0, 30.0 - tolerance - 6.0, jitter_ms=5.0).passed
    assert not check_rtt(30.0, 30.0 + tolerance + 1.0, jitter_ms=5.0).passed
    refused = check_rtt(30.0, 20.0, jitter_ms=5.0)
    assert "jitter 5 ms" in (refused.reason or "")
