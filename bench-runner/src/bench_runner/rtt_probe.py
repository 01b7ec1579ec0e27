"""Measures the network round trip to a port: the time of a TCP connect (SYN, SYN-ACK).

The probe keeps the fastest of several connects. Whatever else happens to a connect (the
machine busy with other work, netem's user-space delayer woken late, a retransmitted SYN)
can only lengthen it, so the fastest is the delay the path has; on a busy 2-core machine
the median of ten connects ran 5-7 ms over a 30 ms profile whose delay was in effect."""

import asyncio
import socket
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
    """The fastest of ``samples`` sequential TCP connects; with ``reference_port``, each
    connect is followed by one to that port, and the fastest of those is recorded too."""
    # Resolve once: a name lookup per connect would add the resolver's round trip to every sample.
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    host = str(infos[0][4][0])
    times: list[float] = []
    reference: list[float] = []
    for _ in range(samples):
        times.append(await tcp_connect_ms(host, port))
        if reference_port is not None:
            reference.append(await tcp_connect_ms(host, reference_port))
    return min(times), RttProbe(
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
