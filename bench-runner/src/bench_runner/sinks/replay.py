"""Delivers spooled payloads; a payload stays spooled until its sink accepts it."""

import json

from bench_runner.settings import Settings
from bench_runner.sinks import pushgateway
from bench_runner.sinks.delivery import Delivery, SinkError
from bench_runner.sinks.line_protocol import count_points, timestamp_precision
from bench_runner.sinks.publish import influx_writer
from bench_runner.sinks.spool import INFLUX_SUFFIX, PUSHGATEWAY_SUFFIX, Spool


def replay_spool(settings: Settings) -> list[Delivery]:
    """Replay oldest first, so a newer push to the same Pushgateway group wins."""
    spool = Spool(settings.spool_dir)
    deliveries: list[Delivery] = []

    writer = influx_writer(settings)
    for path in spool.pending(INFLUX_SUFFIX):
        lines = path.read_text(encoding="utf-8")
        try:
            writer.write(lines, timestamp_precision(lines))
        except ValueError as exc:
            deliveries.append(Delivery("influxdb", False, f"{path.name}: {exc}", path))
            continue
        except SinkError as exc:
            deliveries.append(Delivery("influxdb", False, f"{writer.target}: {exc}", path))
            continue
        path.unlink()
        deliveries.append(
            Delivery("influxdb", True, f"replayed {path.name}: {count_points(lines)} points")
        )

    for path in spool.pending(PUSHGATEWAY_SUFFIX):
        payload = json.loads(path.read_text(encoding="utf-8"))
        registry = pushgateway.registry_from_exposition(payload["exposition"])
        try:
            pushgateway.push(
                settings.pushgateway_url, payload["job"], registry, payload["grouping_key"]
            )
        except SinkError as exc:
            deliveries.append(
                Delivery("pushgateway", False, f"{settings.pushgateway_url}: {exc}", path)
            )
            continue
        path.unlink()
        deliveries.append(Delivery("pushgateway", True, f"replayed {path.name}"))
    return deliveries
