"""Measures the network round trip to a port: the time of a TCP connect (SYN, SYN-ACK)."""

import asyncio
import statistics
import time

from pydantic import BaseModel

PROBE_SAMPLES = 10
CONNECT_TIMEOUT_S = 10.0


class RttProbe(BaseModel):
    method: str = "tcp-connect"
    port: int
    samples: int


async def tcp_connect_ms(host: str, port: int) -> float:
    """One TCP handshake, in ms; the connection is closed right away without sending data."""
    start = time.perf_counter()
    _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), CONNECT_TIMEOUT_S)
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    writer.close()
    await writer.wait_closed()
    return elapsed_ms


async def probe_rtt(host: str, port: int, samples: int = PROBE_SAMPLES) -> tuple[float, RttProbe]:
    """Median of ``samples`` sequential TCP connects (the median ignores the odd
    retransmitted SYN under loss)."""
    times = [await tcp_connect_ms(host, port) for _ in range(samples)]
    return statistics.median(times), RttProbe(port=port, samples=len(times))
