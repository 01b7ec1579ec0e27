"""The two memory gauges a step reads, before opening and while holding: the runner's
resident set size (its children's too, resources.py) after a garbage collection, and the
device container's memory from its metrics endpoint, the median of a few scrapes."""

import asyncio
import gc

import httpx
import psutil

from bench_runner.held.summary import median_reading
from bench_runner.resources import METRICS_TIMEOUT_S, parse_device_metrics, runner_rss_bytes

DEVICE_READINGS = 3
DEVICE_READING_GAP_S = 0.2


def client_rss_bytes() -> int:
    """Collected first, so garbage of the step before is not counted as held."""
    gc.collect()
    return runner_rss_bytes(psutil.Process())


async def device_memory_bytes(metrics_url: str | None) -> tuple[int | None, str | None]:
    """The median of ``DEVICE_READINGS`` scrapes, or None and why."""
    if not metrics_url:
        return None, "no device metrics URL"
    readings = []
    url = f"{metrics_url.rstrip('/')}/metrics"
    async with httpx.AsyncClient(timeout=METRICS_TIMEOUT_S, trust_env=False) as http:
        for reading in range(DEVICE_READINGS):
            if reading:
                await asyncio.sleep(DEVICE_READING_GAP_S)
            try:
                response = await http.get(url)
                response.raise_for_status()
                readings.append(parse_device_metrics(response.text).memory_bytes)
            except (httpx.HTTPError, ValueError) as exc:
                return None, f"device metrics: {type(exc).__name__}: {exc}"
    return median_reading(readings), None


def established_sockets(port: int) -> int | None:
    """The runner's established TCP connections to ``port`` (None where psutil cannot list
    them)."""
    try:
        connections = psutil.Process().net_connections(kind="tcp")
    except psutil.Error:
        return None
    return sum(
        1
        for connection in connections
        if connection.status == psutil.CONN_ESTABLISHED
        and connection.raddr
        and connection.raddr.port == port
    )
