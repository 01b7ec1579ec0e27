"""Load statistics to InfluxDB and the Prometheus Pushgateway, with the runner's spool.

Points are written in the runner's line protocol by its own pure module
(``bench_runner.sinks.line_protocol``, installed without the runner's dependencies, so no
asyncio client comes along), and a payload a sink does not take is saved in the runner's
spool (``results/spool``, ``bench_runner.sinks.spool``) under the runner's suffixes, so
``make replay`` delivers it like any spooled run.

InfluxDB gets one point per second per (transport, mode, client), not one per request: at
200 users the lab does thousands of operations a second, which per request would be millions
of points for a 10-minute run and either one series per user/device (cardinality) or
colliding timestamps; per second, a run's volume is seconds x series (a few thousand points),
and the percentiles of every second stay exact (the histograms, stats.py).
"""

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import requests

from bench_runner.sinks.line_protocol import Point, count_points, format_points
from bench_runner.sinks.spool import INFLUX_SUFFIX, PUSHGATEWAY_SUFFIX, Spool

WRITE_TIMEOUT_S = 10.0
PUSHGATEWAY_JOB = "transport_lab_load"
log = logging.getLogger(__name__)


@dataclass
class SinkTally:
    points: int = 0
    delivered: int = 0
    spooled: int = 0
    spool_files: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class InfluxSink:
    url: str | None
    database: str
    username: str | None
    password: str | None
    spool: Spool
    run_id: str
    tally: SinkTally = field(default_factory=SinkTally)
    _batches: int = 0

    def write(self, points: list[Point]) -> None:
        if not points:
            return
        lines = format_points(points)
        self.tally.points += count_points(lines)
        error = self._post(lines)
        if error is None:
            self.tally.delivered += len(points)
            return
        self._batches += 1
        path = self.spool.save(f"{self.run_id}-load-{self._batches:05d}{INFLUX_SUFFIX}", lines)
        self.tally.spooled += len(points)
        self.tally.spool_files.append(path.name)
        if error not in self.tally.errors:
            self.tally.errors.append(error)
        log.warning("influxdb: %s; %d points spooled to %s", error, len(points), path)

    def _post(self, lines: str) -> str | None:
        if not self.url:
            return "INFLUX_URL not set"
        auth = (self.username, self.password) if self.username and self.password else None
        try:
            response = requests.post(
                f"{self.url.rstrip('/')}/write",
                params={"db": self.database, "precision": "ns"},
                data=lines.encode(),
                auth=auth,
                timeout=WRITE_TIMEOUT_S,
            )
        except requests.RequestException as exc:
            return f"{type(exc).__name__}: {exc}"
        if response.status_code != 204:
            return f"HTTP {response.status_code}: {response.text[:200]}"
        return None


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


@dataclass(frozen=True)
class Sample:
    name: str
    labels: Mapping[str, str]
    value: float


def exposition(samples: Iterable[Sample], help_texts: Mapping[str, tuple[str, str]]) -> str:
    """Prometheus text format; ``help_texts`` maps a metric to (type, help)."""
    by_name: dict[str, list[Sample]] = {}
    for sample in samples:
        by_name.setdefault(sample.name, []).append(sample)
    out = []
    for name, group in by_name.items():
        kind, text = help_texts.get(name, ("gauge", name))
        out.append(f"# HELP {name} {text}\n# TYPE {name} {kind}\n")
        for sample in group:
            labels = ",".join(
                f'{key}="{_escape_label(value)}"' for key, value in sorted(sample.labels.items())
            )
            out.append(
                f"{name}{{{labels}}} {sample.value!r}\n" if labels else f"{name} {sample.value!r}\n"
            )
    return "".join(out)


@dataclass
class PushgatewaySink:
    url: str | None
    spool: Spool
    run_id: str
    pushes: int = 0
    failures: int = 0
    spooled_to: str | None = None
    last_error: str | None = None

    @property
    def grouping_key(self) -> dict[str, str]:
        return {"run_id": self.run_id}

    def push(self, text: str, *, final: bool = False) -> bool:
        """PUT the group (replacing its previous metrics). The final push, if refused, is
        spooled in the runner's format; a refused push mid-run is superseded by the next."""
        error = self._put(text)
        if error is None:
            self.pushes += 1
            if final and self.spooled_to:
                Path(self.spool.directory, self.spooled_to).unlink(missing_ok=True)
                self.spooled_to = None
            return True
        self.failures += 1
        self.last_error = error
        if final:
            payload = json.dumps(
                {"job": PUSHGATEWAY_JOB, "grouping_key": self.grouping_key, "exposition": text},
                indent=2,
            )
            path = self.spool.save(f"{self.run_id}-load{PUSHGATEWAY_SUFFIX}", payload)
            self.spooled_to = path.name
            log.warning("pushgateway: %s; final metrics spooled to %s", error, path)
        return False

    def _put(self, text: str) -> str | None:
        if not self.url:
            return "PUSHGATEWAY_URL not set"
        target = f"{self.url.rstrip('/')}/metrics/job/{PUSHGATEWAY_JOB}/run_id/{self.run_id}"
        try:
            response = requests.put(
                target,
                data=text.encode(),
                headers={"Content-Type": "text/plain; version=0.0.4"},
                timeout=WRITE_TIMEOUT_S,
            )
        except requests.RequestException as exc:
            return f"{type(exc).__name__}: {exc}"
        if response.status_code not in (200, 202):
            return f"HTTP {response.status_code}: {response.text[:200]}"
        return None
