"""Held connections (bench_runner/held): a sweep is validated before it reaches the lab, a
step opens no more connections at once than asked and runs each connection's operations
in turn (an in-process fake transport here), failures are counted and never timed, the
figures and the limit come from what was measured, and the point InfluxDB gets names only
the schema's fields."""

import asyncio
import importlib
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from bench_runner.cli import EXIT_USAGE, app
from bench_runner.held.hold import hold_step, warm_up
from bench_runner.held.limits import kind_of, limit_found
from bench_runner.held.measurement import StepMeasurement
from bench_runner.held.plan import TRANSPORTS, HoldPlan, HoldPlanError, parse_counts
from bench_runner.held.publish import held_points
from bench_runner.held.results import HoldResult, VerifiedRtt
from bench_runner.held.summary import memory_per_connection, operations_per_second, summarize_step
from bench_runner.held.table import hold_table
from bench_runner.held.transports import _MODULES
from bench_runner.influx_schema import Measurement, field_names, tag_names
from bench_runner.results import LabInfo, ProfileInfo, RunnerInfo
from bench_runner.rtt_probe import check_rtt


def _plan(**changes: object) -> HoldPlan:
    values: dict[str, object] = {
        "transport": "ssh",
        "connections": (1, 10),
        "operations_per_connection": 3,
        "duration_s": None,
        "open_concurrency": 2,
    } | changes
    return HoldPlan(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"transport": "telnet"}, "--transport is one of"),
        ({"connections": ()}, "at least one count"),
        ({"connections": (0, 10)}, "1 to 2000"),
        ({"connections": (10, 1)}, "ascend"),
        ({"connections": (10, 10)}, "ascend"),
        ({"duration_s": 5.0}, "one of them"),
        ({"operations_per_connection": None}, "one of them"),
        ({"operations_per_connection": 0}, "1 to 10000"),
        ({"operations_per_connection": None, "duration_s": 301.0}, "at most 300"),
        ({"open_concurrency": 0}, "at least 1"),
    ],
)
def test_a_sweep_that_cannot_run_is_refused_with_its_reason(
    changes: dict[str, object], message: str
) -> None:
    with pytest.raises(HoldPlanError, match=message):
        _plan(**changes)


def test_counts_are_parsed_or_refused() -> None:
    assert parse_counts("1,50, 200") == (1, 50, 200)
    with pytest.raises(HoldPlanError, match="counts like"):
        parse_counts("1,ten")


def test_every_transport_has_a_held_connection_module() -> None:
    assert set(_MODULES) == set(TRANSPORTS)
    for name in _MODULES.values():
        assert callable(importlib.import_module(name).transport)


def test_memory_per_connection_is_the_growth_shared_out() -> None:
    memory = memory_per_connection(1_000_000, 1_400_000, 100)
    assert memory.per_connection_bytes == 4000.0
    assert memory.note is None


def test_a_gauge_that_fell_gives_no_figure_rather_than_a_negative_one() -> None:
    memory = memory_per_connection(2_000_000, 1_990_000, 10)
    assert memory.per_connection_bytes is None
    assert memory.note is not None
    assert "fell by 10000 bytes" in memory.note


def test_a_gauge_not_read_says_why() -> None:
    memory = memory_per_connection(None, 5, 10, "no device metrics URL")
    assert memory.per_connection_bytes is None
    assert memory.note == "no device metrics URL"


def test_operations_per_second_counts_only_what_succeeded_in_its_window() -> None:
    assert operations_per_second(200, 4.0) == 50.0
    assert operations_per_second(0, 4.0) is None
    assert operations_per_second(10, None) is None


def _measured(**changes: object) -> StepMeasurement:
    measured = StepMeasurement(
        connections=4,
        setup_s=[0.1, 0.2, 0.3, 0.4],
        setup_wall_s=0.5,
        sockets=4,
        operation_s=[0.01] * 8,
        operations_window_s=0.2,
        client_before=10_000,
        client_held=14_000,
        device_before=50_000,
        device_held=90_000,
    )
    for key, value in changes.items():
        setattr(measured, key, value)
    return measured


def test_a_step_that_held_has_its_figures_in_ms() -> None:
    step = summarize_step(_measured(), profile_unchanged=True)
    assert step.ok
    assert step.opened == 4
    assert step.setup.p50_ms == pytest.approx(250.0)
    assert step.operations is not None
    assert step.operations.n == 8
    assert step.operations_per_s == pytest.approx(40.0)
    assert step.client_memory.per_connection_bytes == 1000.0
    assert step.device_memory.per_connection_bytes == 10_000.0


def test_a_step_whose_connections_did_not_all_open_publishes_no_operation_figure() -> None:
    measured = _measured(
        setup_s=[0.1, 0.2],
        open_errors=["ConnectionLost: Connection lost"] * 2,
        operation_s=[],
        operations_window_s=None,
        client_held=None,
        device_held=None,
    )
    step = summarize_step(measured, profile_unchanged=True)
    assert not step.ok
    assert step.error == "2 of 4 connections failed to open"
    assert step.setup.n == 2
    assert step.setup.errors == 2
    assert step.operations is None
    assert step.operations_per_s is None
    assert step.client_memory.per_connection_bytes is None
    assert step.client_memory.note is not None
    assert "did not all open" in step.client_memory.note


def test_failed_operations_and_a_changed_profile_fail_the_step() -> None:
    measured = _measured(operation_errors=["timed out after 60 s"])
    step = summarize_step(measured, profile_unchanged=False)
    assert not step.ok
    assert step.operations is not None
    assert step.operations.errors == 1
    assert step.error == (
        "1 connections failed an operation; netem's profile changed during the step"
    )


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("OSError: [Errno 24] Too many open files", "client file descriptors"),
        ("ConnectionLost: Connection lost", "server closed connections in setup"),
        (
            "ConnectionResetError: [Errno 104] Connection reset by peer",
            "server closed connections in setup",
        ),
        ("ConnectionRefusedError: [Errno 111] Connect call failed", "connection refused"),
        ("timed out after 60 s", "timeouts"),
        ("ChannelOpenError: open failed", "channels per connection"),
        ("pygnmi: _InactiveRpcError: StatusCode.UNAVAILABLE", "server overloaded"),
        ("ValueError: something else", "unclassified"),
    ],
)
def test_errors_are_sorted_into_the_limits_that_produce_them(error: str, kind: str) -> None:
    assert kind_of(error) == kind


def test_the_limit_is_the_commonest_kind_with_examples() -> None:
    errors = ["ConnectionLost: Connection lost"] * 3 + ["OSError: [Errno 24] Too many open files"]
    limit = limit_found(500, errors, nofile=1024)
    assert limit is not None
    assert limit.connections == 500
    assert limit.failed == 4
    assert limit.kind == "server closed connections in setup"
    assert "MaxStartups" in limit.detail
    assert limit.errors == {
        "ConnectionLost: Connection lost": 3,
        "OSError: [Errno 24] Too many open files": 1,
    }
    assert limit_found(10, [], nofile=1024) is None
    descriptors = limit_found(10, ["[Errno 24] Too many open files"], nofile=1024)
    assert descriptors is not None
    assert "RLIMIT_NOFILE 1024" in descriptors.detail


class _FakeConnection:
    def __init__(self, transport: "_FakeTransport") -> None:
        self._transport = transport
        self.setup_s = 0.001
        self.operations = 0

    async def operate(self) -> None:
        await asyncio.sleep(0)
        self.operations += 1
        if self._transport.fail_operation and self.operations == 2:
            raise OSError("Connection reset by peer")

    async def close(self) -> None:
        self._transport.closed += 1


class _FakeTransport:
    client = "fake"
    operation = "nothing"
    port = 9

    def __init__(self, fail_open_after: int | None = None, fail_operation: bool = False) -> None:
        self.fail_open_after = fail_open_after
        self.fail_operation = fail_operation
        self.opening = 0
        self.most_opening = 0
        self.opened = 0
        self.closed = 0

    def version(self) -> str:
        return "0"

    async def prepare(self, connections: int) -> None:
        return None

    async def open(self) -> _FakeConnection:
        self.opening += 1
        self.most_opening = max(self.most_opening, self.opening)
        try:
            await asyncio.sleep(0.001)
            if self.fail_open_after is not None and self.opened >= self.fail_open_after:
                raise OSError("[Errno 24] Too many open files")
            self.opened += 1
            return _FakeConnection(self)
        finally:
            self.opening -= 1


def test_a_step_opens_no_more_at_once_than_asked_and_runs_every_operation() -> None:
    transport = _FakeTransport()
    measured = asyncio.run(hold_step(transport, 7, _plan(), None))
    assert transport.most_opening == 2
    assert len(measured.setup_s) == 7
    assert measured.open_errors == []
    assert len(measured.operation_s) == 7 * 3
    assert measured.operations_window_s is not None
    assert measured.client_before is not None
    assert measured.client_held is not None
    assert measured.device_error == "no device metrics URL"
    assert transport.closed == 7


def test_a_step_whose_connections_do_not_all_open_runs_nothing_and_closes_what_opened() -> None:
    transport = _FakeTransport(fail_open_after=3)
    measured = asyncio.run(hold_step(transport, 6, _plan(), None))
    assert len(measured.setup_s) == 3
    assert measured.open_errors == ["OSError: [Errno 24] Too many open files"] * 3
    assert measured.operation_s == []
    assert measured.operations_window_s is None
    assert transport.closed == 3


def test_a_failed_operation_ends_its_connection_s_loop_and_is_counted() -> None:
    transport = _FakeTransport(fail_operation=True)
    measured = asyncio.run(hold_step(transport, 4, _plan(), None))
    assert len(measured.operation_s) == 4  # the first of each: the second failed
    assert measured.operation_errors == ["OSError: Connection reset by peer"] * 4


def test_a_duration_bounds_the_operations() -> None:
    plan = _plan(operations_per_connection=None, duration_s=0.05)
    measured = asyncio.run(hold_step(_FakeTransport(), 2, plan, None))
    assert measured.operation_s
    assert measured.operation_errors == []


def test_the_warm_up_connection_is_closed_and_its_failure_reported() -> None:
    transport = _FakeTransport()
    assert asyncio.run(warm_up(transport)) is None
    assert transport.closed == 1
    refused = _FakeTransport(fail_open_after=0)
    assert asyncio.run(warm_up(refused)) == "OSError: [Errno 24] Too many open files"


def _result() -> HoldResult:
    held = summarize_step(_measured(), profile_unchanged=True)
    failed = summarize_step(
        _measured(open_errors=["ConnectionLost"], operations_window_s=None, operation_s=[]),
        profile_unchanged=True,
    )
    moment = datetime(2026, 11, 28, tzinfo=UTC)
    return HoldResult(
        run_id="hold-1",
        started_at=moment,
        finished_at=moment,
        lab=LabInfo(commit="abc", images="dev"),
        runner=RunnerInfo(version="0", python="3.13"),
        profile=ProfileInfo(
            name="regional",
            rtt_ms=30.0,
            jitter_ms=0.0,
            loss_pct=0.0,
            rate_mbit=0.0,
            source=None,
            engine="nfq",
            engine_reason=None,
            applied_at=None,
            readback=None,
        ),
        transport="ssh",
        client="asyncssh",
        client_version="2.24.1",
        operation="exec",
        rtt=VerifiedRtt(port=22, verified_rtt_ms=30.4, check=check_rtt(30.0, 30.4, applies=True)),
        operations_per_connection=2,
        duration_s=None,
        open_concurrency=10,
        nofile_limit=1024,
        steps=[held, failed],
        limit=limit_found(4, ["ConnectionLost"], 1024),
        ok=False,
        error="stopped",
    )


def test_only_the_steps_that_held_are_points_and_they_name_the_schema_s_fields() -> None:
    points = held_points(_result())
    assert len(points) == 1
    point = points[0]
    assert point.measurement == Measurement.HELD_CONNECTIONS
    assert point.tags["connections"] == "4"
    assert set(point.tags) <= tag_names()
    assert set(point.fields) <= field_names(Measurement.HELD_CONNECTIONS, (), (), ())


def test_the_table_shows_figures_for_a_step_that_held_and_none_for_one_that_did_not() -> None:
    table = hold_table(_result())
    assert table.row_count == 2
    cells = [list(column.cells) for column in table.columns]
    error_column = cells[-1]
    assert error_column[0] == ""
    assert "failed to open" in error_column[1]
    assert cells[4][1] == "-"  # no operation figure for the step that did not hold


def test_the_command_refuses_a_sweep_before_it_touches_the_lab(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NETEM_URL", "http://127.0.0.1:9")  # nothing answers: never asked
    answer = CliRunner().invoke(app, ["hold", "--transport", "ssh", "--connections", "10,1"])
    assert answer.exit_code == EXIT_USAGE
    assert "ascend" in answer.output
