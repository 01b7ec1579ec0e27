"""Measures the network round trip to a port: the time of a TCP connect (SYN, SYN-ACK)."""

import asyncio
import socket
import statistics
import time

from pydantic import BaseModel

PROBE_SAMPLES = 10
CONNECT_TIMEOUT_S = 10.0


class RttProbe(BaseModel):
    method: str = "tcp-connect"
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


async def probe_rtt(
    host: str, port: int, samples: int = PROBE_SAMPLES, reference_port: int | None = None
) -> tuple[float, RttProbe]:
    """Median of ``samples`` sequential TCP connects (the median ignores the odd
    retransmitted SYN under loss); with ``reference_port``, each connect is followed by one
    to that port, and the median of those is recorded too."""
    # Resolve once: a name lookup per connect would add the resolver's round trip to every sample.
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    host = str(infos[0][4][0])
    times: list[float] = []
    reference: list[float] = []
    for _ in range(samples):
        times.append(await tcp_connect_ms(host, port))
        if reference_port is not None:
            reference.append(await tcp_connect_ms(host, reference_port))
    return statistics.median(times), RttProbe(
        port=port,
        samples=len(times),
        reference_port=reference_port,
        reference_rtt_ms=statistics.median(reference) if reference else None,
    )


RTT_TOLERANCE_FRACTION = 0.10
RTT_TOLERANCE_FLOOR_MS = 1.0


class RttCheck(BaseModel):
    """The verified-RTT gate: a mode whose measured RTT is off from the profile's by more
    than ``max(10 %, 1 ms)`` is not measured and not published (its numbers would be
    attributed to a latency that was not in effect)."""

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
    if abs(deviation) > tolerance:
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
                f"the configured {configured_rtt_ms:g} ms (tolerance {tolerance:g} ms)"
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
