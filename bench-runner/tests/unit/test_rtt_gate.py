import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bench_runner import rtt_probe
from bench_runner.protocols import quic
from bench_runner.rtt_probe import (
    QUIC_VERSION_NEGOTIATION,
    TCP_CONNECT,
    NoAnswerError,
    RttProbe,
    check_rtt,
    probe_rtt,
    rtt_tolerance_ms,
)


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


class _VersionNegotiator(asyncio.DatagramProtocol):
    """A QUIC server's answer to a version it does not speak (RFC 9000 section 17.2.1),
    after a stray datagram that answers nothing."""

    def __init__(self) -> None:
        self.transport: asyncio.DatagramTransport | None = None
        self.probes: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        assert self.transport is not None
        self.probes.append(data)
        if len(data) < quic.MIN_INITIAL_DATAGRAM:
            return  # a server answers only a datagram as long as a client's first
        probe = quic.parse_long_header(data)
        answer = (
            bytes([quic.LONG_HEADER | 0x2A])
            + quic.VERSION_NEGOTIATION.to_bytes(4, "big")
            + bytes([len(probe.scid)])
            + probe.scid
            + bytes([len(probe.dcid)])
            + probe.dcid
            + quic.VERSION_1.to_bytes(4, "big")
        )
        self.transport.sendto(b"\x80stray", addr)
        self.transport.sendto(answer, addr)


@asynccontextmanager
async def quic_server(answer: bool = True) -> AsyncIterator[tuple[int, _VersionNegotiator]]:
    """A UDP port on loopback that answers probes (or, ``answer`` false, never does)."""
    loop = asyncio.get_running_loop()
    negotiator = _VersionNegotiator() if answer else asyncio.DatagramProtocol()
    transport, _ = await loop.create_datagram_endpoint(
        lambda: negotiator, local_addr=("127.0.0.1", 0)
    )
    try:
        yield transport.get_extra_info("sockname")[1], negotiator  # type: ignore[misc]
    finally:
        transport.close()


def test_a_quic_port_is_probed_with_version_negotiation() -> None:
    async def scenario() -> tuple[float, RttProbe, list[bytes]]:
        reference = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        reference_port = reference.sockets[0].getsockname()[1]
        async with reference, quic_server() as (port, negotiator):
            fastest, probe = await probe_rtt(
                "127.0.0.1", port, samples=3, reference_port=reference_port, quic_port=True
            )
            return fastest, probe, negotiator.probes

    fastest, probe, probes = asyncio.run(scenario())
    assert 0 < fastest < 100
    assert (probe.method, probe.samples) == (QUIC_VERSION_NEGOTIATION, 3)
    assert probe.reference_rtt_ms is not None  # the reference port is a TCP one
    assert len(probes) == 3
    for datagram in probes:
        header = quic.parse_long_header(datagram)
        assert len(datagram) == quic.MIN_INITIAL_DATAGRAM
        assert header.kind is quic.PacketType.OTHER_VERSION
        assert header.version & 0x0F0F0F0F == 0x0A0A0A0A
    assert len({bytes(quic.parse_long_header(datagram).dcid) for datagram in probes}) == 3


def test_a_tcp_port_is_still_probed_with_connects() -> None:
    async def scenario() -> RttProbe:
        server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        async with server:
            return (await probe_rtt("127.0.0.1", server.sockets[0].getsockname()[1], 2))[1]

    assert asyncio.run(scenario()).method == TCP_CONNECT


def test_a_quic_port_that_never_answers_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rtt_probe, "VERSION_NEGOTIATION_WAIT_S", 0.05)

    async def scenario() -> None:
        async with quic_server(answer=False) as (port, _):
            await probe_rtt("127.0.0.1", port, samples=2, quic_port=True)

    with pytest.raises(
        NoAnswerError, match=r"no QUIC Version Negotiation answer from 127\.0\.0\.1 UDP port"
    ):
        asyncio.run(scenario())


def test_a_closed_quic_port_is_refused() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(ConnectionRefusedError):
        asyncio.run(probe_rtt("127.0.0.1", port, samples=1, quic_port=True))
