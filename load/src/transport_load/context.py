"""A load run's context: netem's profile and engine, the RTT verified with a probe as the
runner does (median TCP connect to the SSH port, interleaved with the unimpaired metrics port
as reference), the device's resources from its metrics, and versions."""

import platform
import socket
import statistics
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import requests

from bench_runner.influx_schema import LoadResourcesField

PROBE_SAMPLES = 10
TIMEOUT_S = 5.0
CONTAINER_CPU = "device_container_cpu_seconds_total"
CONTAINER_MEMORY = "device_container_memory_bytes"
GNMI_SUBSCRIPTIONS = "device_gnmi_subscriptions"
GNMI_UPDATES = "device_gnmi_updates_total"
GNMI_DROPPED = "device_gnmi_dropped_subscriptions_total"
GNMI_METRICS = (GNMI_SUBSCRIPTIONS, GNMI_UPDATES, GNMI_DROPPED)


def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


def versions() -> dict[str, str]:
    return {
        "python": platform.python_version(),
        **{
            name: package_version(name)
            for name in (
                "transport-load",
                "locust",
                "paramiko",
                "parallel-ssh",
                "ssh2-python",
                "gevent",
                "geventhttpclient",
                "aioquic",
                "grpcio",
                "protobuf",
                "pygnmi",
            )
        },
    }


def netem_state(netem_url: str | None) -> dict[str, Any]:
    """Profile name, configured RTT and engine from netem's API (empty without one)."""
    if not netem_url:
        return {}
    try:
        data = requests.get(f"{netem_url.rstrip('/')}/profile", timeout=TIMEOUT_S).json()
    except (requests.RequestException, ValueError):
        return {}
    profile = data.get("profile") or {}
    return {
        "name": profile.get("name"),
        "configured_rtt_ms": profile.get("rtt_ms"),
        "engine": data.get("engine"),
        "generation": data.get("generation"),
    }


def tcp_connect_ms(host: str, port: int) -> float:
    start = time.perf_counter()
    with socket.create_connection((host, port), timeout=TIMEOUT_S):
        return (time.perf_counter() - start) * 1000.0


def probe_rtt(host: str, port: int, reference_port: int | None) -> dict[str, Any]:
    address = str(socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)[0][4][0])
    samples, reference = [], []
    for _ in range(PROBE_SAMPLES):
        samples.append(tcp_connect_ms(address, port))
        if reference_port:
            reference.append(tcp_connect_ms(address, reference_port))
    return {
        "method": "tcp-connect",
        "port": port,
        "samples": PROBE_SAMPLES,
        "rtt_ms": round(statistics.median(samples), 3),
        "reference_port": reference_port,
        "reference_rtt_ms": round(statistics.median(reference), 3) if reference else None,
    }


def rtt_verified(
    configured_ms: float | None, measured_ms: float, reference_ms: float | None
) -> bool | None:
    """The runner's rule of thumb: within 20 % of the configured RTT plus 2 ms (the lab's
    own round trip and scheduling); None when nothing was configured."""
    if configured_ms is None:
        return None
    base = reference_ms or 0.0
    return abs(measured_ms - base - configured_ms) <= 0.2 * configured_ms + 2.0


def parse_device_metrics(text: str) -> dict[str, float]:
    """The device container's CPU seconds and memory bytes from its Prometheus text."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in (CONTAINER_CPU, CONTAINER_MEMORY):
            found[name] = float(value.split()[0])
    return found


def parse_gnmi_metrics(text: str) -> dict[str, float]:
    """The device's gNMI subscriptions (active), notifications sent and subscriptions
    dropped, each summed over its labels (mode); absent when the device has no gNMI."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        name, brace, _ = line.partition("{")
        value = line[line.find("}") + 1 :] if brace else line.partition(" ")[2]
        name = name.split(" ", 1)[0]
        if name in GNMI_METRICS and value.split():
            found[name] = found.get(name, 0.0) + float(value.split()[0])
    return found


METRICS_TIMEOUT_S = 2.0


def metrics_text(metrics_url: str | None) -> str | None:
    if not metrics_url:
        return None
    try:
        response = requests.get(f"{metrics_url.rstrip('/')}/metrics", timeout=METRICS_TIMEOUT_S)
    except requests.RequestException:
        return None
    return response.text if response.ok else None


@dataclass
class DeviceSampler:
    """CPU cores (rate between samples) and memory of the device container; its gNMI
    counters of the same scrape in ``gnmi``."""

    metrics_url: str | None
    _last: tuple[float, float] | None = None
    gnmi: dict[str, float] = field(default_factory=dict)

    def sample(self) -> dict[str, float]:
        now = time.monotonic()
        text = metrics_text(self.metrics_url)
        metrics = parse_device_metrics(text) if text is not None else {}
        self.gnmi = parse_gnmi_metrics(text) if text is not None else {}
        out: dict[str, float] = {}
        if CONTAINER_MEMORY in metrics:
            out[LoadResourcesField.DEVICE_MEMORY_BYTES] = metrics[CONTAINER_MEMORY]
        if CONTAINER_CPU in metrics:
            cpu = metrics[CONTAINER_CPU]
            if self._last is not None and now > self._last[0] and cpu >= self._last[1]:
                cores = (cpu - self._last[1]) / (now - self._last[0])
                out[LoadResourcesField.DEVICE_CPU_CORES] = cores
            self._last = (now, cpu)
        return out
