"""Delivers spooled payloads; a payload stays spooled until its sink accepts it, and a file
that is no payload (cut short, not JSON, not line protocol) is set aside, never blocking
the files after it."""

import json
from pathlib import Path

from bench_runner.settings import Settings
from bench_runner.sinks import pushgateway
from bench_runner.sinks.delivery import Delivery, SinkError
from bench_runner.sinks.line_protocol import count_points, timestamp_precision
from bench_runner.sinks.publish import influx_writer
from bench_runner.sinks.spool import INFLUX_SUFFIX, PUSHGATEWAY_SUFFIX, Spool

# What reading or parsing a damaged file raises (json.JSONDecodeError and
# UnicodeDecodeError are ValueErrors).
_CORRUPT = (ValueError, KeyError, TypeError, AttributeError)


def _set_aside(spool: Spool, sink: str, path: Path, exc: Exception) -> Delivery:
    moved = spool.set_aside(path)
    return Delivery(
        sink,
        False,
        f"{path.name} is not a payload {sink} can take ({type(exc).__name__}: {exc}); "
        "none of it was delivered",
        spooled_to=moved,
        set_aside=True,
    )


def _replay_influx(settings: Settings, spool: Spool) -> list[Delivery]:
    writer = influx_writer(settings)
    deliveries: list[Delivery] = []
    for path in spool.pending(INFLUX_SUFFIX):
        try:
            lines = path.read_text(encoding="utf-8")
            precision = timestamp_precision(lines)
        except _CORRUPT as exc:
            deliveries.append(_set_aside(spool, "influxdb", path, exc))
            continue
        try:
            writer.write(lines, precision)
        except SinkError as exc:
            deliveries.append(Delivery("influxdb", False, f"{writer.target}: {exc}", path))
            continue
        path.unlink()
        deliveries.append(
            Delivery("influxdb", True, f"replayed {path.name}: {count_points(lines)} points")
        )
    return deliveries


def _replay_pushgateway(settings: Settings, spool: Spool) -> list[Delivery]:
    deliveries: list[Delivery] = []
    for path in spool.pending(PUSHGATEWAY_SUFFIX):
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
            job, grouping_key = str(payload["job"]), dict(payload["grouping_key"])
            registry = pushgateway.registry_from_exposition(payload["exposition"])
        except _CORRUPT as exc:
            deliveries.append(_set_aside(spool, "pushgateway", path, exc))
            continue
        try:
            pushgateway.push(settings.pushgateway_url, job, registry, grouping_key)
        except SinkError as exc:
            deliveries.append(
                Delivery("pushgateway", False, f"{settings.pushgateway_url}: {exc}", path)
            )
            continue
        path.unlink()
        deliveries.append(Delivery("pushgateway", True, f"replayed {path.name}"))
    return deliveries


def replay_spool(settings: Settings) -> list[Delivery]:
    """Replay each sink's files in the order they were written, so a newer push to the same
    Pushgateway group wins and InfluxDB gets runs as they happened."""
    spool = Spool(settings.spool_dir)
    return _replay_influx(settings, spool) + _replay_pushgateway(settings, spool)
