"""Per-second statistics per (transport, mode, client): what goes to InfluxDB and what the
sweep's steps and the results' summary are computed from (pure, no Locust).

Every request of every user lands in the bucket of its second; a bucket keeps a histogram of
response times rounded to 3 significant digits (at most ~900 keys per decade, typically a few
dozen), so percentiles over any window are exact to 0.5 % and a bucket is small enough to
travel from a worker to the master with Locust's own stats report every 3 s.
"""

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

Key = tuple[str, str, str]
"""(request_type = transport, name = bench mode, client library)."""


def round_ms(value_ms: float) -> float:
    """3 significant digits (0.0123 ms resolution at 1 ms, 1 ms at 100 ms)."""
    if value_ms <= 0:
        return 0.0
    digits = 2 - math.floor(math.log10(value_ms))
    return round(value_ms, digits)


@dataclass
class Bucket:
    requests: int = 0
    failures: int = 0
    bytes: int = 0
    sum_ms: float = 0.0
    max_ms: float = 0.0
    histogram: dict[float, int] = field(default_factory=dict)

    def add(self, response_time_ms: float, length: int, failed: bool) -> None:
        self.requests += 1
        self.failures += int(failed)
        self.bytes += length
        self.sum_ms += response_time_ms
        self.max_ms = max(self.max_ms, response_time_ms)
        rounded = round_ms(response_time_ms)
        self.histogram[rounded] = self.histogram.get(rounded, 0) + 1

    def merge(self, other: "Bucket") -> None:
        self.requests += other.requests
        self.failures += other.failures
        self.bytes += other.bytes
        self.sum_ms += other.sum_ms
        self.max_ms = max(self.max_ms, other.max_ms)
        for value, count in other.histogram.items():
            self.histogram[value] = self.histogram.get(value, 0) + count

    def percentile(self, fraction: float) -> float | None:
        """The smallest recorded value with at least ``fraction`` of the samples at or
        below it (nearest rank), or None without samples."""
        total = sum(self.histogram.values())
        if total == 0:
            return None
        rank = max(1, math.ceil(fraction * total))
        seen = 0
        for value in sorted(self.histogram):
            seen += self.histogram[value]
            if seen >= rank:
                return value
        return max(self.histogram)  # pragma: no cover - rank <= total

    @property
    def mean_ms(self) -> float | None:
        return self.sum_ms / self.requests if self.requests else None

    def to_wire(self) -> list[Any]:
        return [
            self.requests,
            self.failures,
            self.bytes,
            self.sum_ms,
            self.max_ms,
            [[value, count] for value, count in self.histogram.items()],
        ]

    @classmethod
    def from_wire(cls, data: list[Any]) -> "Bucket":
        requests, failures, length, sum_ms, max_ms, histogram = data
        return cls(
            int(requests),
            int(failures),
            int(length),
            float(sum_ms),
            float(max_ms),
            {float(value): int(count) for value, count in histogram},
        )


@dataclass
class Collector:
    """Buckets by second and key, and request counts per device (whole run)."""

    seconds: dict[int, dict[Key, Bucket]] = field(default_factory=dict)
    devices: dict[str, list[int]] = field(default_factory=dict)
    """device name -> [requests, failures]."""

    def record(
        self,
        start_time: float,
        key: Key,
        response_time_ms: float,
        length: int,
        failed: bool,
        device: str = "",
    ) -> None:
        buckets = self.seconds.setdefault(int(start_time), {})
        buckets.setdefault(key, Bucket()).add(response_time_ms, length, failed)
        if device:
            counts = self.devices.setdefault(device, [0, 0])
            counts[0] += 1
            counts[1] += int(failed)

    def drain(self) -> dict[str, Any]:
        """Everything recorded so far, for the master, and forget it here."""
        wire = {
            "seconds": [
                [second, list(key), bucket.to_wire()]
                for second, buckets in self.seconds.items()
                for key, bucket in buckets.items()
            ],
            "devices": [[name, counts[0], counts[1]] for name, counts in self.devices.items()],
        }
        self.seconds = {}
        self.devices = {}
        return wire

    def merge_wire(self, wire: dict[str, Any]) -> None:
        for second, key, data in wire.get("seconds", []):
            buckets = self.seconds.setdefault(int(second), {})
            typed_key: Key = (str(key[0]), str(key[1]), str(key[2]))
            buckets.setdefault(typed_key, Bucket()).merge(Bucket.from_wire(data))
        for name, requests, failures in wire.get("devices", []):
            counts = self.devices.setdefault(str(name), [0, 0])
            counts[0] += int(requests)
            counts[1] += int(failures)

    def settled(self, before_second: int) -> Iterator[tuple[int, Key, Bucket]]:
        """Buckets of the seconds before ``before_second`` (no late report can change them)."""
        for second in sorted(s for s in self.seconds if s < before_second):
            for key, bucket in sorted(self.seconds[second].items()):
                yield second, key, bucket

    def window(self, start: float, end: float) -> dict[Key, Bucket]:
        """Per key, the seconds in [start, end) merged."""
        merged: dict[Key, Bucket] = {}
        for second, buckets in self.seconds.items():
            if start <= second < end:
                for key, bucket in buckets.items():
                    merged.setdefault(key, Bucket()).merge(bucket)
        return merged


def summarize(bucket: Bucket, seconds: float) -> dict[str, float | int | None]:
    """Figures of a window: ops/s over its length, percentiles, errors."""
    return {
        "requests": bucket.requests,
        "failures": bucket.failures,
        "ops_per_s": bucket.requests / seconds if seconds > 0 else None,
        "mean_ms": bucket.mean_ms,
        "p50_ms": bucket.percentile(0.50),
        "p95_ms": bucket.percentile(0.95),
        "p99_ms": bucket.percentile(0.99),
        "max_ms": bucket.max_ms if bucket.requests else None,
    }


def merged(buckets: Iterable[Bucket]) -> Bucket:
    total = Bucket()
    for bucket in buckets:
        total.merge(bucket)
    return total
