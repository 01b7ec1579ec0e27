"""A recording HTTP server on 127.0.0.1 standing in for InfluxDB and the Pushgateway."""

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench_runner.modes import MODES_BY_NAME, Target
from bench_runner.precision import StoppingRule
from bench_runner.results import (
    IterationRecord,
    LabInfo,
    ModeResult,
    ModeRun,
    ProfileInfo,
    RunnerInfo,
    RunResult,
    TargetInfo,
)
from bench_runner.rtt_probe import RttProbe
from bench_runner.stats import summarize
from handshake_samples import ssh_handshakes, tls_handshakes

TARGET = Target(host="device", ssh_port=22, https_port=443, username="u", password="p")


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class FakeHttpServer:
    url: str
    status: int = 204
    requests: list[RecordedRequest] = field(default_factory=list)


@pytest.fixture
def fake_http_server() -> Iterator[FakeHttpServer]:
    state = FakeHttpServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            state.requests.append(
                RecordedRequest(
                    self.command, self.path, dict(self.headers.items()), self.rfile.read(length)
                )
            )
            self.send_response(state.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        # http.server dispatches on these exact method names.
        def do_POST(self) -> None:
            self._record()

        def do_PUT(self) -> None:
            self._record()

        def log_message(self, format: str, *args: object) -> None:  # keep test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def sample_run() -> tuple[RunResult, list[ModeRun]]:
    """A finished two-mode run: one clean mode, one with a failed iteration."""
    started = datetime(2026, 11, 22, 11, 0, 0, tzinfo=UTC)
    profile = ProfileInfo(
        name="regional",
        rtt_ms=30.0,
        jitter_ms=1.0,
        loss_pct=0.0,
        rate_mbit=0.0,
        source="test",
        engine="nfq",
        engine_reason="test",
        applied_at=None,
        readback=None,
    )
    mode_runs = []
    for mode, records, handshakes in (
        (
            MODES_BY_NAME["https/keep-alive"],
            [(1, 31.5, None), (2, 32.5, None)],
            tls_handshakes({"false": 1}),
        ),
        (
            MODES_BY_NAME["ssh/reuse-conn"],
            [(1, 61.0, None), (2, 90.0, "show clock: % Invalid x")],
            ssh_handshakes({"curve25519-sha256": 1, "sntrup761x25519-sha512@openssh.com": 1}),
        ),
    ):
        iteration_records = [
            IterationRecord(index, started + timedelta(seconds=index), wall_ms, error)
            for index, wall_ms, error in records
        ]
        samples = [record.wall_ms for record in iteration_records if record.ok]
        errors = [record.error for record in iteration_records if record.error]
        result = ModeResult(
            mode=mode.name,
            transport=mode.transport.value,
            client=mode.client,
            client_version="1.0",
            description=mode.description,
            iterations=2,
            warmup=0,
            commands=["show version"],
            configured_rtt_ms=30.0,
            verified_rtt_ms=30.4,
            rtt_probe=RttProbe(port=mode.port(TARGET), samples=10),
            min_round_trips=mode.min_round_trips(1),
            expected_round_trips=mode.expected_round_trips(1),
            connections_per_iteration=mode.connections_per_iteration(1),
            commands_per_request=mode.commands_per_request(1),
            ok=not errors,
            stats=summarize(samples, len(errors)),
            samples_ms=samples,
            error_messages=errors,
            handshakes=handshakes,
            precision=StoppingRule(fixed_iterations=2).outcome(samples, "fixed"),
        )
        mode_runs.append(ModeRun(result, iteration_records))
    run = RunResult(
        run_id="20261122T110000Z-abc123",
        started_at=started,
        finished_at=started + timedelta(minutes=1),
        lab=LabInfo(commit="deadbeef", images=None),
        runner=RunnerInfo(version="0.1.0", python="3.11"),
        device={"hostname": "lab-r1"},
        target=TargetInfo(host=TARGET.host, ssh_port=TARGET.ssh_port, https_port=TARGET.https_port),
        profile=profile,
        modes=[mode_run.result for mode_run in mode_runs],
        ok=all(mode_run.result.ok for mode_run in mode_runs),
    )
    return run, mode_runs
