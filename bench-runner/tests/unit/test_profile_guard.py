"""A fault never produces a number: the profile guard, and what a mode does with what it
reports (excluded iterations, waiting for the profile, the RTT gate again)."""

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import pytest

from bench_runner import profile_watch
from bench_runner.modes import Mode
from bench_runner.modes.base import NONE, ONCE, ONE_PER_COMMAND, Session, Target
from bench_runner.modes.row import ModeDefinition, Plugin, Row
from bench_runner.netem import NetemClient
from bench_runner.precision import StoppingRule
from bench_runner.profile_guard import Disturbance, ProfileGuard
from bench_runner.results import ModeRun
from bench_runner.runner import RunPlan, run_mode
from fake_netem import FakeNetem, serve_fake_netem

COMMANDS = ("show version",)


@pytest.fixture
def netem() -> Iterator[FakeNetem]:
    with serve_fake_netem() as fake:
        yield fake


def _guard(netem: FakeNetem) -> ProfileGuard:
    state = NetemClient(netem.url).current()
    return ProfileGuard(NetemClient(netem.url), "regional", state.instance, state.generation)


def test_nothing_changed(netem: FakeNetem) -> None:
    assert _guard(netem).check() is None


def test_a_change_by_anyone_is_dated(netem: FakeNetem) -> None:
    guard = _guard(netem)
    netem.change("applied", "local")
    disturbance = guard.check()
    assert disturbance is not None
    assert "generation 1 -> 2: applied local" in disturbance.reason
    assert disturbance.since is not None


def test_a_repair_dates_the_change_to_when_the_rules_were_last_seen(netem: FakeNetem) -> None:
    guard = _guard(netem)
    last_seen = datetime.now(UTC) - timedelta(seconds=4)
    netem.change("repaired", "regional", since=last_seen)
    disturbance = guard.check()
    assert disturbance is not None
    assert disturbance.since == last_seen


def test_a_restart_cannot_be_dated(netem: FakeNetem) -> None:
    guard = _guard(netem)
    netem.restart()
    disturbance = guard.check()
    assert disturbance is not None
    assert "netem restarted" in disturbance.reason
    assert disturbance.since is None


def test_unreachable_netem_is_a_disturbance() -> None:
    guard = ProfileGuard(NetemClient("http://127.0.0.1:9"), "regional", "x", 1)
    disturbance = guard.check()
    assert disturbance is not None
    assert disturbance.reason.startswith("netem unreachable")


def test_waiting_adopts_the_restarted_netem(netem: FakeNetem) -> None:
    guard = _guard(netem)
    netem.restart()  # re-applies regional from its state file
    assert guard.wait_until_applied(timeout_s=2) is None
    assert guard.check() is None


def test_waiting_for_a_profile_that_does_not_come_back_gives_up(
    netem: FakeNetem, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bench_runner.profile_guard.POLL_INTERVAL_S", 0.05)
    guard = _guard(netem)
    netem.change("applied", "local")
    problem = guard.wait_until_applied(timeout_s=0.2)
    assert problem is not None
    assert "not back within" in problem


class ScriptedGuard(ProfileGuard):
    """Reports the given disturbances at the given checks (0-based), nothing otherwise;
    the profile comes back unless ``stays_away``."""

    def __init__(self, disturbed_at: dict[int, Disturbance], stays_away: bool = False) -> None:
        super().__init__(NetemClient("http://127.0.0.1:9"), "local", "x", 1)
        self.disturbed_at = disturbed_at
        self.stays_away = stays_away
        self.checks = 0

    def check(self) -> Disturbance | None:
        self.checks += 1
        return self.disturbed_at.get(self.checks - 1)

    def wait_until_applied(self, timeout_s: float = 0) -> str | None:
        return "profile local not back within 90 s" if self.stays_away else None


class _Echo:
    def __init__(self, fail_at: set[int]) -> None:
        self.fail_at = fail_at
        self.calls = 0

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self.calls += 1
        await asyncio.sleep(0.001)
        if self.calls in self.fail_at:
            raise ConnectionResetError("device restarting")
        return ["ok"] * len(commands)


@asynccontextmanager
async def echo_session(
    mode: Mode, target: Target, *, fail_at: frozenset[int]
) -> AsyncIterator[Session]:
    yield _Echo(set(fail_at))


_ECHO = ModeDefinition(
    name="ssh/echo",
    summary="scripted",
    lower_bound=ONE_PER_COMMAND,
    argument="Lower bound: n round trips.",
    connections=NONE,
    commands_per_request=ONCE,
)


def _scripted_mode(fail_at: frozenset[int] = frozenset()) -> Mode:
    session = Plugin("test_profile_guard:echo_session", (("fail_at", fail_at),))
    return Mode.of(
        Row(_ECHO, "asyncssh", "scripted", ONE_PER_COMMAND, "Expected: n round trips.", session)
    )


def _run(mode: Mode, guard: ProfileGuard, iterations: int = 6) -> ModeRun:
    async def scenario() -> ModeRun:
        server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        target = Target(
            host="127.0.0.1", ssh_port=port, https_port=port, username="u", password="p"
        )
        plan = RunPlan(
            COMMANDS, StoppingRule(fixed_iterations=iterations), warmup=0, iteration_timeout_s=5.0
        )
        async with server:
            return await run_mode(mode, target, plan, 0.0, lambda ok: None, guard)

    return asyncio.run(scenario())


@pytest.fixture(autouse=True)
def _check_before_every_iteration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(profile_watch, "GUARD_INTERVAL_S", 0.0)


def test_iterations_since_an_undated_disturbance_are_excluded_not_published() -> None:
    """A check runs before every iteration and after the last; the fourth (before iteration
    4) finds netem restarted: iteration 3, run since the check before, is excluded."""
    mode_run = _run(_scripted_mode(), ScriptedGuard({3: Disturbance("netem restarted", None)}))
    result = mode_run.result
    excluded = [record.iteration for record in mode_run.records if record.excluded]
    assert excluded == [3]
    assert result.stats.n == 5
    assert result.stats.excluded == 1
    assert result.stats.errors == 0
    assert len(result.samples_ms) == 5
    assert not result.ok
    assert "1 iterations excluded" in result.error_messages[0]


def test_a_dated_change_excludes_what_ended_after_it() -> None:
    since = datetime.now(UTC) - timedelta(hours=1)  # before every iteration of the mode
    mode_run = _run(_scripted_mode(), ScriptedGuard({2: Disturbance("applied local", since)}))
    assert [record.excluded is not None for record in mode_run.records] == [
        True,
        True,
        False,
        False,
        False,
        False,
    ]


def test_a_failure_is_checked_at_once_and_the_mode_goes_on_when_netem_is_fine() -> None:
    guard = ScriptedGuard({})
    mode_run = _run(_scripted_mode(fail_at=frozenset({2})), guard, iterations=4)
    assert mode_run.result.stats.errors == 1
    assert mode_run.result.stats.excluded == 0
    assert guard.checks == 5  # before each of the 4 iterations and after the last


def test_a_profile_that_does_not_come_back_stops_the_mode() -> None:
    guard = ScriptedGuard({1: Disturbance("netem unreachable", None)}, stays_away=True)
    mode_run = _run(_scripted_mode(fail_at=frozenset({1})), guard)
    assert len(mode_run.records) == 1  # the check after the failed first iteration stops it
    assert any(
        "stopped after a fault: profile local not back" in message
        for message in mode_run.result.error_messages
    )
