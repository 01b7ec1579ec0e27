"""Measures the network round trip to a port: the time of a TCP connect (SYN, SYN-ACK), or,
for a QUIC port (UDP), of a QUIC Version Negotiation exchange.

The probe keeps the fastest of several exchanges. Whatever else happens to one (the
machine busy with other work, netem's user-space delayer woken late, a retransmitted SYN)
can only lengthen it, so the fastest is the delay the path has; on a busy 2-core machine
the median of ten connects ran 5-7 ms over a 30 ms profile whose delay was in effect.

A QUIC server answers a datagram of a version it does not speak, if it is at least 1200
bytes long, with a Version Negotiation packet (RFC 9000 section 6): exactly one round trip,
no key, no connection state on either side. The probe sends a version of the reserved
pattern ``0x?a?a?a?a`` (section 15), which no server speaks, with connection IDs of its own
that the answer must echo. UDP does not retransmit: a probe or answer lost (a lossy profile)
is sent again, with new IDs, and timed from then."""

import asyncio
import os
import socket
import time

from pydantic import BaseModel

from bench_runner.protocols import quic

PROBE_SAMPLES = 10
CONNECT_TIMEOUT_S = 10.0
TCP_CONNECT = "tcp-connect"
QUIC_VERSION_NEGOTIATION = "quic-version-negotiation"
VERSION_NEGOTIATION_TRIES = 3
VERSION_NEGOTIATION_WAIT_S = 3.0
"""How long one probe datagram waits for its answer: five times the slowest profile's RTT
(600 ms), as long as a TCP connect waits before its first SYN retransmission (3 s)."""
PROBE_CONNECTION_ID_BYTES = 8
ANSWER_BYTES = 2048
"""More than a Version Negotiation packet listing a few dozen versions takes."""


class NoAnswerError(OSError):
    """The QUIC port never answered a Version Negotiation probe."""


class RttProbe(BaseModel):
    method: str = TCP_CONNECT
    """``tcp-connect`` or ``quic-version-negotiation`` (the mode's port; the reference
    port is always probed with TCP connects)."""
    port: int
    samples: int
    reference_port: int | None = None
    """An unimpaired port of the same device (its metrics port), probed interleaved with
    ``port``: the lab's own round trip without netem, under the same load."""
    reference_rtt_ms: float | None = None


async def tcp_connect_ms(host: str, port: int) -> float:
    """One TCP handshake, in ms; the connection is closed right away without sending data."""
    start = time.perf_counter()
    _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), CONNECT_TIMEOUT_S)
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    writer.close()
    await writer.wait_closed()
    return elapsed_ms


async def quic_version_negotiation_ms(host: str, port: int) -> float:
    """One Version Negotiation exchange with the QUIC server at ``host`` (an address) and
    ``port``, in ms, from the probe's sending to its answer's arrival."""
    loop = asyncio.get_running_loop()
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as sock:
        sock.setblocking(False)
        # Connected: only the port's datagrams arrive, and an ICMP refusal raises.
        await loop.sock_connect(sock, (host, port))
        for _ in range(VERSION_NEGOTIATION_TRIES):
            dcid = os.urandom(PROBE_CONNECTION_ID_BYTES)
            scid = os.urandom(PROBE_CONNECTION_ID_BYTES)
            version = quic.reserved_version(int.from_bytes(os.urandom(4), "big"))
            probe = quic.version_negotiation_probe(dcid, scid, version)
            start = time.perf_counter()
            await loop.sock_sendall(sock, probe)
            try:
                async with asyncio.timeout(VERSION_NEGOTIATION_WAIT_S):
                    while not quic.answers_probe(
                        await loop.sock_recv(sock, ANSWER_BYTES), dcid, scid
                    ):
                        pass  # a late answer to an earlier probe, or another datagram
            except TimeoutError:
                continue
            return (time.perf_counter() - start) * 1000.0
    raise NoAnswerError(
        f"no QUIC Version Negotiation answer from {host} UDP port {port} to "
        f"{VERSION_NEGOTIATION_TRIES} probes, {VERSION_NEGOTIATION_WAIT_S:g} s each: no QUIC "
        "server there, or its datagrams do not pass"
    )


async def probe_rtt(
    host: str,
    port: int,
    samples: int = PROBE_SAMPLES,
    reference_port: int | None = None,
    *,
    quic_port: bool = False,
) -> tuple[float, RttProbe]:
    """The fastest of ``samples`` sequential TCP connects, or, for a ``quic_port``, Version
    Negotiation exchanges; with ``reference_port``, each is followed by a TCP connect to
    that port, and the fastest of those is recorded too."""
    # Resolve once: a name lookup per connect would add the resolver's round trip to every sample.
    kind = socket.SOCK_DGRAM if quic_port else socket.SOCK_STREAM
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=kind)
    host = str(infos[0][4][0])
    exchange = quic_version_negotiation_ms if quic_port else tcp_connect_ms
    times: list[float] = []
    reference: list[float] = []
    for _ in range(samples):
        times.append(await exchange(host, port))
        if reference_port is not None:
            reference.append(await tcp_connect_ms(host, reference_port))
    return min(times), RttProbe(
        method=QUIC_VERSION_NEGOTIATION if quic_port else TCP_CONNECT,
        port=port,
        samples=len(times),
        reference_port=reference_port,
        reference_rtt_ms=min(reference) if reference else None,
    )


RTT_TOLERANCE_FRACTION = 0.10
RTT_TOLERANCE_FLOOR_MS = 1.0


class RttCheck(BaseModel):
    """The verified-RTT gate: a mode whose measured RTT is off from the profile's by more
    than ``max(10 %, 1 ms)`` is not measured and not published (its numbers would be
    attributed to a latency that was not in effect). With jitter, the fastest connect may be
    up to the jitter below the profile's RTT (uniform within +-jitter)."""

    applies: bool
    tolerance_ms: float
    added_rtt_ms: float | None = None
    """Verified RTT minus the reference (unimpaired) RTT: the delay netem adds; the verified
    RTT itself when there is no reference."""
    deviation_ms: float | None
    passed: bool
    reason: str | None
    attempts: int = 1
    """Probes made: a probe outside the tolerance is repeated (see runner)."""


def rtt_tolerance_ms(configured_rtt_ms: float) -> float:
    return max(RTT_TOLERANCE_FRACTION * configured_rtt_ms, RTT_TOLERANCE_FLOOR_MS)


def check_rtt(
    configured_rtt_ms: float,
    verified_rtt_ms: float | None,
    *,
    applies: bool = True,
    attempts: int = 1,
    reference_rtt_ms: float | None = None,
    jitter_ms: float = 0.0,
) -> RttCheck:
    """``applies=False`` for targets whose latency the lab does not control (real devices):
    the check passes and says why it was not made."""
    tolerance = rtt_tolerance_ms(configured_rtt_ms)
    if not applies:
        return RttCheck(
            applies=False,
            tolerance_ms=tolerance,
            deviation_ms=None,
            passed=True,
            reason="not applicable: the target's latency is not set by netem",
            attempts=attempts,
        )
    if verified_rtt_ms is None:
        return RttCheck(
            applies=True,
            tolerance_ms=tolerance,
            deviation_ms=None,
            passed=False,
            reason="RTT could not be verified (probe failed)",
            attempts=attempts,
        )
    added = verified_rtt_ms - (reference_rtt_ms or 0.0)
    deviation = added - configured_rtt_ms
    if not -(tolerance + jitter_ms) <= deviation <= tolerance:
        reference = (
            ""
            if reference_rtt_ms is None
            else f" ({verified_rtt_ms:.2f} ms minus {reference_rtt_ms:.2f} ms unimpaired)"
        )
        return RttCheck(
            applies=True,
            tolerance_ms=tolerance,
            added_rtt_ms=added,
            deviation_ms=deviation,
            passed=False,
            reason=(
                f"verified RTT {added:.2f} ms{reference} is off by {deviation:+.2f} ms from "
                f"the configured {configured_rtt_ms:g} ms (tolerance {tolerance:g} ms"
                + (f", jitter {jitter_ms:g} ms)" if jitter_ms else ")")
            ),
            attempts=attempts,
        )
    return RttCheck(
        applies=True,
        tolerance_ms=tolerance,
        added_rtt_ms=added,
        deviation_ms=deviation,
        passed=True,
        reason=None,
        attempts=attempts,
    )
