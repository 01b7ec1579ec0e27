import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench_runner.resources import ResourceMonitor, counter_increase, parse_device_metrics

EXPOSITION = """# HELP device_container_cpu_seconds_total CPU time of the container.
# TYPE device_container_cpu_seconds_total counter
device_container_cpu_seconds_total {cpu}
# HELP device_container_memory_bytes Memory of the container.
# TYPE device_container_memory_bytes gauge
device_container_memory_bytes {memory}
# HELP device_sessions_open Open sessions.
# TYPE device_sessions_open gauge
device_sessions_open{{transport="ssh"}} 1
"""


def test_parse_device_metrics() -> None:
    sample = parse_device_metrics(EXPOSITION.format(cpu="1.5", memory="3.0949376e+07"))
    assert sample.cpu_s == 1.5
    assert sample.memory_bytes == 30949376


def test_parse_device_metrics_requires_both_series() -> None:
    with pytest.raises(ValueError, match="device_container_memory_bytes"):
        parse_device_metrics("device_container_cpu_seconds_total 1\n")


SECOND_SCRAPE = threading.Event()


@pytest.fixture
def metrics_server() -> Iterator[tuple[str, list[tuple[float, int]]]]:
    """Serves a growing CPU counter and a memory gauge that peaks on the second scrape."""
    script = [(10.0, 1000), (10.5, 5000), (11.25, 2000)]
    served: list[tuple[float, int]] = []
    SECOND_SCRAPE.clear()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            cpu, memory = script[min(len(served), len(script) - 1)]
            served.append((cpu, memory))
            if len(served) >= 2:
                SECOND_SCRAPE.set()
            body = EXPOSITION.format(cpu=cpu, memory=memory).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", served
    server.shutdown()
    server.server_close()


def test_monitor_reads_device_and_runner(
    metrics_server: tuple[str, list[tuple[float, int]]],
) -> None:
    url, served = metrics_server

    async def scenario() -> ResourceMonitor:
        async with ResourceMonitor(url, interval_s=0.05) as monitor:
            # The first sample, then one periodic (the memory peak), however busy the machine.
            assert await asyncio.to_thread(SECOND_SCRAPE.wait, 30)
            sum(i * i for i in range(200_000))  # some runner CPU
        return monitor

    usage = asyncio.run(scenario()).usage
    assert usage is not None
    assert len(served) >= 3
    assert usage.device_cpu_s == pytest.approx(served[-1][0] - 10.0)
    assert usage.device_memory_peak_bytes == 5000
    assert usage.device_samples == len(served)
    assert usage.device_error is None
    assert usage.runner_cpu_s > 0
    assert usage.runner_rss_peak_bytes > 10_000_000


def test_monitor_without_device_metrics_still_measures_the_runner() -> None:
    async def scenario() -> ResourceMonitor:
        async with ResourceMonitor("http://127.0.0.1:9", interval_s=10) as monitor:
            pass
        return monitor

    usage = asyncio.run(scenario()).usage
    assert usage is not None
    assert usage.device_cpu_s is None
    assert usage.device_memory_peak_bytes is None
    assert usage.device_error is not None
    assert "ConnectError" in usage.device_error
    assert usage.runner_rss_peak_bytes > 0


@pytest.mark.parametrize(
    ("previous", "current", "expected"),
    [
        (10.0, 12.5, (2.5, False)),
        (10.0, 10.0, (0.0, False)),
        (812.3, 0.4, (0.4, True)),  # the device restarted: its counter started from zero
    ],
)
def test_counter_increase_treats_a_decrease_as_a_reset(
    previous: float, current: float, expected: tuple[float, bool]
) -> None:
    assert counter_increase(previous, current) == expected


def test_a_device_restart_never_gives_negative_cpu() -> None:
    """The counter reads 800 s, the device restarts, then 0.5 s and 1.5 s: 1.5 s of CPU
    over the mode, one reset, never -798.5 s."""
    readings = [800.0, 0.5, 1.5]
    served = iter(readings)
    # The monitor samples on a timer: wait until it has read every value, not for a fixed
    # time, so a busy machine cannot end the mode before the restart was seen.
    all_served = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            cpu = next(served, None)
            if cpu is None:
                all_served.set()
                cpu = readings[-1]
            body = EXPOSITION.format(cpu=cpu, memory=1000).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    async def scenario() -> ResourceMonitor:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        async with ResourceMonitor(url, interval_s=0.05) as monitor:
            await asyncio.to_thread(all_served.wait, 30)
        return monitor

    try:
        usage = asyncio.run(scenario()).usage
    finally:
        server.shutdown()
        server.server_close()
    assert usage is not None
    assert usage.device_cpu_s == pytest.approx(1.5)
    assert usage.device_counter_resets == 1
