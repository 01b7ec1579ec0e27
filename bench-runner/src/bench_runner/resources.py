"""What a mode costs besides time: CPU and memory of the runner and of the device.

The runner's own figures come from psutil: CPU seconds (user + system, including child
processes the runner waited for, such as the OpenSSH client) and the resident set size of
the runner plus its live children, sampled for the peak. The device's come from its
metrics endpoint (``$DEVICE_METRICS_URL/metrics``, Prometheus text):
``device_container_cpu_seconds_total`` (a counter: its increase over the mode, summed
sample to sample so that a device restart, which starts the counter again from zero, is
counted as a reset and not read as a negative difference) and ``device_container_memory_bytes``
(a gauge: its peak over samples taken at the start, every ``interval_s`` and at the end).
"""

import asyncio
import contextlib
import time
from dataclasses import dataclass
from types import TracebackType

import httpx
import psutil
from prometheus_client.parser import text_string_to_metric_families
from pydantic import BaseModel

DEVICE_CPU_METRIC = "device_container_cpu_seconds_total"
DEVICE_MEMORY_METRIC = "device_container_memory_bytes"
SAMPLE_INTERVAL_S = 1.0
METRICS_TIMEOUT_S = 5.0


class ResourceUsage(BaseModel):
    """Resources used during a mode's measured iterations (warm-up excluded)."""

    elapsed_s: float
    """Wall time from the first measured iteration's start to the last one's end,
    including what the harness does between iterations."""
    runner_cpu_s: float
    runner_rss_peak_bytes: int
    device_cpu_s: float | None
    device_memory_peak_bytes: int | None
    device_samples: int
    device_error: str | None
    device_counter_resets: int = 0
    """Times the device's CPU counter went down (the device restarted): the CPU it used
    between the sample before and the restart is not in ``device_cpu_s``, a lower bound
    then."""


@dataclass(frozen=True)
class DeviceSample:
    cpu_s: float
    memory_bytes: int


def parse_device_metrics(text: str) -> DeviceSample:
    """The device's CPU seconds and memory from its Prometheus exposition text."""
    values: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in (DEVICE_CPU_METRIC, DEVICE_MEMORY_METRIC):
                values[sample.name] = sample.value
    missing = [name for name in (DEVICE_CPU_METRIC, DEVICE_MEMORY_METRIC) if name not in values]
    if missing:
        raise ValueError(f"device metrics lack {', '.join(missing)}")
    return DeviceSample(
        cpu_s=values[DEVICE_CPU_METRIC], memory_bytes=int(values[DEVICE_MEMORY_METRIC])
    )


def counter_increase(previous: float, current: float) -> tuple[float, bool]:
    """How much a counter grew between two samples, and whether it was reset in between
    (it went down: it started again from zero, so all of ``current`` is new)."""
    if current < previous:
        return current, True
    return current - previous, False


def runner_cpu_s(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system + times.children_user + times.children_system


def runner_rss_bytes(process: psutil.Process) -> int:
    rss = int(process.memory_info().rss)
    for child in process.children(recursive=True):
        with contextlib.suppress(psutil.Error):  # a child may exit between listing and reading
            rss += int(child.memory_info().rss)
    return rss


class ResourceMonitor:
    """``async with ResourceMonitor(url) as monitor: ...`` then ``monitor.usage``.

    A device whose metrics cannot be read leaves the device figures null and names the
    error; it never fails the mode (the runner's figures are still recorded)."""

    def __init__(self, metrics_url: str | None, interval_s: float = SAMPLE_INTERVAL_S) -> None:
        self._url = f"{metrics_url.rstrip('/')}/metrics" if metrics_url else None
        self._interval_s = interval_s
        self._process = psutil.Process()
        self._http = httpx.AsyncClient(timeout=METRICS_TIMEOUT_S, trust_env=False)
        self._cpu_start = 0.0
        self._rss_peak = 0
        self._device_last: DeviceSample | None = None
        self._device_cpu_s = 0.0
        self._device_resets = 0
        self._device_memory_peak: int | None = None
        self._device_samples = 0
        self._device_error: str | None = None if self._url else "no device metrics URL"
        self._sampler: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._started = 0.0
        self.usage: ResourceUsage | None = None

    async def __aenter__(self) -> "ResourceMonitor":
        self._cpu_start = runner_cpu_s(self._process)
        self._rss_peak = runner_rss_bytes(self._process)
        await self._sample_device()
        self._sampler = asyncio.create_task(self._sample_periodically())
        self._started = time.perf_counter()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        elapsed_s = time.perf_counter() - self._started
        if self._sampler is not None:
            # A sample in flight is finished, not cancelled: every scrape the device served
            # is counted (its memory may be the peak).
            self._stop.set()
            await self._sampler
        cpu_s = runner_cpu_s(self._process) - self._cpu_start
        self._rss_peak = max(self._rss_peak, runner_rss_bytes(self._process))
        await self._sample_device()
        await self._http.aclose()
        device_cpu = self._device_cpu_s if self._device_samples >= 2 else None
        self.usage = ResourceUsage(
            elapsed_s=elapsed_s,
            runner_cpu_s=cpu_s,
            runner_rss_peak_bytes=self._rss_peak,
            device_cpu_s=device_cpu,
            device_memory_peak_bytes=self._device_memory_peak,
            device_samples=self._device_samples,
            device_error=self._device_error,
            device_counter_resets=self._device_resets,
        )

    async def _sample_periodically(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._stop.wait(), self._interval_s)
            except TimeoutError:
                self._rss_peak = max(self._rss_peak, runner_rss_bytes(self._process))
                await self._sample_device()
            else:
                return

    async def _sample_device(self) -> None:
        if self._url is None:
            return
        try:
            response = await self._http.get(self._url)
            response.raise_for_status()
            sample = parse_device_metrics(response.text)
        except (httpx.HTTPError, ValueError) as exc:
            self._device_error = f"{type(exc).__name__}: {exc}"
            return
        if self._device_last is not None:
            increase, reset = counter_increase(self._device_last.cpu_s, sample.cpu_s)
            self._device_cpu_s += increase
            self._device_resets += reset
        self._device_last = sample
        self._device_samples += 1
        self._device_memory_peak = max(self._device_memory_peak or 0, sample.memory_bytes)
