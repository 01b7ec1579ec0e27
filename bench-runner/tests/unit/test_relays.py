"""The remote site's pure parts: where a relayed mode connects, how a run splits into a
direct and a relayed job, both hops' gates, the head-end's answers and the time they split,
the OpenSSH ProxyCommand, and several netems guarded as one."""

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bench_runner import runner
from bench_runner.lab_run import RunRequest, UsageError, plan_jobs
from bench_runner.modes import MODES_BY_NAME, RELAYED_MODES, Relay, Target, Transport, select_modes
from bench_runner.modes.clients.headend_answer import HeadendAnswer, hop_phases
from bench_runner.modes.clients.headend_httpx import exec_path
from bench_runner.modes.clients.openssh_jump import master_proxy_command, proxy_command
from bench_runner.netem import History, HistoryEvent
from bench_runner.plan import Plan, PlanError, load_plan
from bench_runner.precision import StoppingRule
from bench_runner.profile_guard import Disturbance, ProfileGuard, ProfileGuards
from bench_runner.rtt_probe import RttProbe
from bench_runner.runner import LanPlan, RunPlan, verify_path
from bench_runner.settings import Settings
from bench_runner.targets import load_inventory
from bench_runner.validation import IterationError

RELAY = Relay("jumphost", 22, "jump", "jump-secret", "headend", 443, "automation", "api-secret")
TARGET = Target("device", 22, 443, "labops", "device-secret", relay=RELAY)


def test_a_relayed_transport_connects_to_the_relay_with_its_own_credentials() -> None:
    assert TARGET.host_for(Transport.JUMP) == "jumphost"
    assert TARGET.port(Transport.JUMP) == 22
    assert TARGET.host_for(Transport.PROXY) == "headend"
    assert TARGET.port(Transport.PROXY) == 443
    assert TARGET.host_for(Transport.SSH) == "device"
    jump = TARGET.jump_login()
    assert (jump.host, jump.username, jump.password) == ("jumphost", "jump", "jump-secret")
    with pytest.raises(ValueError, match="no jump host"):
        Target("device", 22, 443, "u", "p").port(Transport.JUMP)
    mode = MODES_BY_NAME["jump/reuse-conn"]
    assert mode.relayed
    assert mode.wire_hosts(TARGET) == ("jumphost",)
    assert not MODES_BY_NAME["ssh/reuse-conn"].relayed


def test_relayed_modes_are_chosen_by_name_only() -> None:
    assert RELAYED_MODES
    assert not any(mode.relayed for mode in select_modes(["all"], ["all"]).modes)
    names = ["jump/fresh-conn", "proxy/keep-alive"]
    chosen = select_modes(names, ["all"]).modes
    assert {mode.name for mode in chosen} == set(names)
    assert {mode.client for mode in chosen if mode.name == "jump/fresh-conn"} == {
        "asyncssh",
        "paramiko",
        "openssh",
    }


def test_all_with_relayed_modes_beside_it_has_both() -> None:
    chosen = {mode.name for mode in select_modes(["all", "proxy/keep-alive"]).modes}
    assert "proxy/keep-alive" in chosen
    assert "ssh/pty-fresh" in chosen
    nightly = {mode.name for mode in select_modes(load_plan("nightly").mode_names()).modes}
    assert {"ssh/pty-fresh", "jump/fresh-conn", "jump/pty-fresh", "proxy/keep-alive"} <= nightly


def _request(plan: Plan) -> RunRequest:
    return RunRequest(plan, "run1", True, None, False, 0.0, [])


def _settings(**changes: Any) -> Settings:
    values: dict[str, Any] = {
        "device_username": "labops",
        "device_password": "device-secret",
        "jump_username": "jump",
        "jump_password": "jump-secret",
        "headend_username": "automation",
        "headend_password": "api-secret",
    }
    return Settings(**{**values, **changes})


def test_a_run_of_direct_and_relayed_modes_is_two_jobs_per_profile() -> None:
    plan = Plan(profiles=["local", "regional"], modes=["ssh/reuse-conn", "jump/reuse-conn"])
    jobs = plan_jobs(_settings(), _request(plan), None, True)
    assert [(job.run_id, job.profile, job.relayed) for job in jobs] == [
        ("run1-local", "local", False),
        ("run1-local-relayed", "local", True),
        ("run1-regional", "regional", False),
        ("run1-regional-relayed", "regional", True),
    ]
    assert all(job.target.relay == RELAY for job in jobs)
    only_relayed = plan_jobs(_settings(), _request(Plan(modes=["proxy/keep-alive"])), None, True)
    assert [(job.run_id, job.relayed) for job in only_relayed] == [("run1", True)]
    direct = plan_jobs(_settings(), _request(Plan(modes=["ssh/reuse-conn"])), None, True)
    assert direct[0].target.relay is None


def test_relayed_modes_need_the_relays_credentials() -> None:
    plan = Plan(modes=["jump/reuse-conn"])
    with pytest.raises(UsageError, match="JUMP_USERNAME and JUMP_PASSWORD"):
        plan_jobs(_settings(jump_password=None), _request(plan), None, True)
    with pytest.raises(UsageError, match="HEADEND_USERNAME and HEADEND_PASSWORD"):
        plan_jobs(_settings(headend_username=""), _request(plan), None, True)


def _plan(lan: LanPlan | None) -> RunPlan:
    return RunPlan(
        ("show version",),
        StoppingRule(fixed_iterations=1),
        0,
        10.0,
        reference_port=9100,
        relay_reference_port=8181,
        lan=lan,
    )


def test_a_relayed_mode_passes_both_hops_gates(monkeypatch: pytest.MonkeyPatch) -> None:
    """The WAN gate on the relay's port against its own unimpaired port, the LAN gate on the
    device's SSH port against the device's; the LAN's failure says which hop."""
    added = {("jumphost", 22): 30.0, ("device", 22): 2.0}
    probed: list[tuple[str, int, int | None]] = []

    async def probe(
        host: str, port: int, samples: int = 5, reference_port: int | None = None, **_: Any
    ) -> tuple[float, RttProbe]:
        probed.append((host, port, reference_port))
        rtt = added.get((host, port), 0.0) + 0.1
        return rtt, RttProbe(
            port=port, samples=1, reference_port=reference_port, reference_rtt_ms=0.1
        )

    monkeypatch.setattr(runner, "probe_rtt", probe)
    monkeypatch.setattr(runner, "RTT_REPROBE_PAUSE_S", 0.0)
    mode = MODES_BY_NAME["jump/reuse-conn"]
    wan, lan = asyncio.run(verify_path(mode, TARGET, _plan(LanPlan("campus", 2.0)), 30.0))
    assert wan.passed
    assert lan is not None
    assert lan.passed
    assert probed == [("jumphost", 22, 8181), ("device", 22, 9100)]

    added[("device", 22)] = 20.0
    wan, lan = asyncio.run(verify_path(mode, TARGET, _plan(LanPlan("campus", 2.0)), 30.0))
    assert wan.passed
    assert lan is not None
    assert lan.error is not None
    assert lan.error.startswith("LAN hop (campus): rtt gate")
    _, none = asyncio.run(verify_path(mode, TARGET, _plan(None), 30.0))
    assert none is None


def _answer(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "device": "device",
        "ssh": "pooled",
        "reused": True,
        "outputs": ["a", "b"],
        "exit_statuses": [0, 0],
        "lan": {
            "connect_ms": 0.0,
            "commands_ms": 8.0,
            "round_trips": 4,
            "bytes_sent": 1,
            "bytes_received": 2,
        },
        "headend_ms": 9.0,
    }
    return {**body, **changes}


def test_the_head_ends_answer_is_checked() -> None:
    answer = HeadendAnswer(_answer())
    assert answer.checked(["show a", "show b"]) == ["a", "b"]
    assert answer.round_trips == 4
    with pytest.raises(IterationError, match="2 outputs for 3 commands"):
        answer.checked(["x", "y", "z"])
    with pytest.raises(IterationError, match="show b: exit status 1"):
        HeadendAnswer(_answer(exit_statuses=[0, 1])).checked(["show a", "show b"])
    with pytest.raises(IterationError, match="malformed"):
        HeadendAnswer(_answer(lan={}))
    with pytest.raises(IterationError, match="not a JSON object"):
        HeadendAnswer(["a"])
    assert exec_path("198.18.100.129", "fresh") == "/devices/198.18.100.129/exec?ssh=fresh"


@pytest.mark.parametrize(
    ("wall", "connect", "commands", "headend"),
    [(100.0, 20.0, 30.0, 60.0), (40.0, 20.0, 30.0, 60.0), (100.0, 0.0, 70.0, 60.0)],
)
def test_the_hops_never_add_up_to_more_than_the_iteration(
    wall: float, connect: float, commands: float, headend: float
) -> None:
    lan = {"connect_ms": connect, "commands_ms": commands, "round_trips": 1}
    phases = hop_phases(wall, HeadendAnswer(_answer(lan=lan, headend_ms=headend)))
    assert set(phases) == {"wan_and_client", "headend", "lan_connect", "lan_commands"}
    assert all(value >= 0 for value in phases.values())
    assert sum(phases.values()) <= wall + 1e-9
    if connect + commands <= headend <= wall:
        assert phases["lan_connect"] == connect
        assert phases["headend"] == pytest.approx(headend - connect - commands)


def test_the_proxy_command_is_what_ssh_minus_j_runs() -> None:
    jump = TARGET.jump_login()
    fresh = proxy_command(jump, Path("/tmp/x/askpass"))
    assert fresh.startswith(
        "env SSH_ASKPASS=/tmp/x/askpass SSH_ASKPASS_REQUIRE=force ssh -F /dev/null "
    )
    assert fresh.endswith("-p 22 -W %h:%p jump@jumphost")
    assert "jump-secret" not in fresh
    kept = master_proxy_command(jump, Path("/tmp/y/jump"))
    assert kept.startswith("ssh ")
    assert "ControlPath=/tmp/y/jump" in kept
    assert "ASKPASS" not in kept


class _FakeNetem:
    def __init__(self, instance: str, generations: list[int]) -> None:
        self.instance = instance
        self.generations = generations

    def history(self) -> History:
        at = datetime(2026, 11, 28, tzinfo=UTC)
        events = [
            HistoryEvent(generation=g, event="applied", profile="regional", at=at)
            for g in self.generations
        ]
        return History(instance=self.instance, events=events)


def test_several_netems_are_guarded_as_one() -> None:
    wan = _FakeNetem("wan", [1])
    lan = _FakeNetem("lan", [4])
    guards = ProfileGuards(
        [
            ProfileGuard(wan, "regional", "wan", 1),  # type: ignore[arg-type]
            ProfileGuard(lan, "regional", "lan", 4),  # type: ignore[arg-type]
        ]
    )
    assert guards.check() is None
    lan.generations = [4, 5]
    disturbance = guards.check()
    assert isinstance(disturbance, Disturbance)
    assert "generation 4 -> 5" in disturbance.reason
    assert guards.wait_until_applied(1.0) is None
    assert guards.check() is None


def test_a_real_inventory_names_each_sites_relay_and_its_own_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inventory = tmp_path / "sites.yaml"
    inventory.write_text(
        """
targets:
  - {name: edge-r1, host: 10.1.0.1, relay: site-a}
  - {name: edge-r2, host: 10.1.0.2}
relays:
  site-a: {jump_host: 10.1.0.254, jump_username_env: A_JUMP_USER, jump_password_env: A_JUMP_PASS}
"""
    )
    for name, value in {
        "DEVICE_USERNAME": "ops",
        "DEVICE_PASSWORD": "device-secret",
        "A_JUMP_USER": "bastion",
        "A_JUMP_PASS": "bastion-secret",
    }.items():
        monkeypatch.setenv(name, value)
    loaded = load_inventory(inventory)
    relayed = loaded.targets[0].target(loaded.relays)
    assert relayed.relay is not None
    assert relayed.jump_login().username == "bastion"
    assert relayed.jump_login().password == "bastion-secret"
    assert relayed.password == "device-secret"
    with pytest.raises(ValueError, match="no head-end"):
        relayed.host_for(Transport.PROXY)
    plan = Plan(modes=["jump/reuse-conn"])
    with pytest.raises(UsageError, match="none for edge-r2"):
        plan_jobs(_settings(), _request(plan), loaded, False)
    monkeypatch.delenv("A_JUMP_PASS")
    with pytest.raises(PlanError, match="relay site-a: environment variable"):
        loaded.targets[0].target(loaded.relays)
