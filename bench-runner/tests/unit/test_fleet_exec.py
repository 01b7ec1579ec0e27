"""ssh/fleet-show-version: the five SSH libraries on several fleet devices (reproduction 2),
its plan and sweep, round-trip bounds, output checks, series identity, the capture over
several addresses and the comparison tables."""

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from prometheus_client import generate_latest

from bench_runner.lab_run import select
from bench_runner.modes import FLEET_MODES, MODES_BY_NAME, Mode, Target, select_modes, sweep_fleet
from bench_runner.modes.clients import asyncssh_exec, fleet, paramiko_ssh
from bench_runner.modes.clients.fleet import FleetHost, check_host_output, fleet_hosts
from bench_runner.outputs import PARAMETER_COLUMNS
from bench_runner.plan import load_plan, parse_plan
from bench_runner.reproduce.published import load_experiment
from bench_runner.reproduce.tables import comparison_markdown, sections
from bench_runner.results import RunResult
from bench_runner.sinks.influx import mode_tags, parameter_fields
from bench_runner.sinks.pushgateway import run_registry
from bench_runner.validation import IterationError
from bench_runner.wire import bpf
from bpf_interpreter import Packet, run
from test_reproduce import mode_entry, run_document
from wire_packets import ETHERNET, ipv4_tcp

TARGET = Target("198.18.100.129", 22, 443, "labops", "secret")
FLEET = tuple((f"lab-r{k}", f"198.18.100.{128 + k}") for k in range(1, 11))
MODE = "ssh/fleet-show-version"


def fleet_mode(client: str, hosts: int = 1, repeats: int = 1) -> Mode:
    mode = next(mode for mode in FLEET_MODES if mode.client == client)
    return mode.with_fleet(hosts, repeats)


@pytest.fixture
def fleet_of_ten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fleet, "_fleet_of", lambda target: FLEET)


def show_version(name: str) -> str:
    return f"Cisco IOS XE Software, Version 17.9.4a\n{name} uptime is 1 hour, 2 minutes\n"


# --- plan, selection, sweep -----------------------------------------------------------------


def test_the_plan_sweeps_every_client_over_hosts_and_repeats() -> None:
    plan = load_plan("reproduce-ssh-libraries")
    assert plan.fleet_host_counts() == [1, 2, 4, 10]
    assert plan.fleet_repeat_counts() == [3, 10]
    assert plan.commands == ["show version"]
    selection = select(plan)
    assert selection.not_applicable == []
    clients = ["asyncssh", "scrapli", "ssh2-python", "paramiko", "netmiko"]
    cases = [{"hosts": h, "repeats": r} for h in (1, 2, 4, 10) for r in (3, 10)]
    assert [(m.client, m.parameters()) for m in selection.modes] == [
        (client, case) for client in clients for case in cases
    ]
    labels = [mode.label() for mode in selection.modes]
    assert len(labels) == len(set(labels))
    assert labels[0] == f"{MODE} asyncssh hosts=1 repeats=3"


def test_fleet_counts_default_to_one_and_are_bounded() -> None:
    plan = parse_plan("", "t")
    assert (plan.fleet_host_counts(), plan.fleet_repeat_counts()) == ([1], [1])
    assert parse_plan("fleet_hosts: [4, 4, 2]\n", "t").fleet_host_counts() == [4, 2]
    with pytest.raises(ValueError, match="fleet_hosts"):
        parse_plan("fleet_hosts: 0\n", "t")
    with pytest.raises(ValueError, match="fleet_repeats"):
        parse_plan("fleet_repeats: [3, 127]\n", "t")


def test_the_fleet_mode_is_selected_by_name_only() -> None:
    assert MODE not in {mode.name for mode in select_modes(["all"], ["all"]).modes}
    assert MODES_BY_NAME[MODE].client == "asyncssh"
    selection = select_modes([MODE], ["floor", "netmiko", "openssh"])
    assert [mode.client for mode in selection.modes] == ["asyncssh", "netmiko"]
    assert [(entry.mode, entry.client) for entry in selection.not_applicable] == [(MODE, "openssh")]
    # Other modes pass the sweep untouched.
    other = MODES_BY_NAME["ssh/fresh-conn"]
    assert sweep_fleet([other], [1, 10], [3]) == [other]


# --- round trips ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("client", "per_host", "concurrent"),
    [
        ("asyncssh", 10, True),
        ("scrapli", 21, True),
        ("ssh2-python", 9, False),
        ("paramiko", 12, False),
        ("netmiko", 21, False),
    ],
)
def test_bounds_scale_with_hosts_sequentially_and_with_repeats_always(
    client: str, per_host: int, concurrent: bool
) -> None:
    """Per host and run with one command: the client's fresh-connection count; the
    sequential clients pay it for every host of every run, the concurrent ones once per
    run (their hosts overlap)."""
    mode = fleet_mode(client)
    assert mode.expected_round_trips(1) == per_host
    assert mode.min_round_trips(1) == 4
    for hosts, repeats in ((1, 3), (4, 10), (10, 3)):
        swept = mode.with_fleet(hosts, repeats)
        factor = repeats * (1 if concurrent else hosts)
        assert swept.expected_round_trips(1) == per_host * factor
        assert swept.min_round_trips(1) == 4 * factor
        assert swept.min_round_trips(1) <= swept.expected_round_trips(1)
        assert swept.connections_per_iteration(1) == hosts * repeats
        assert swept.row is mode.row


def test_every_fleet_client_is_one_of_the_publications_five() -> None:
    assert [mode.client for mode in FLEET_MODES] == [
        "asyncssh",
        "scrapli",
        "ssh2-python",
        "paramiko",
        "netmiko",
    ]
    assert [mode.row.hosts_at_once for mode in FLEET_MODES] == [True, True, False, False, False]
    with pytest.raises(ValueError, match="at least 1"):
        fleet_mode("asyncssh", 0, 3)


# --- hosts and outputs ----------------------------------------------------------------------


@pytest.mark.usefixtures("fleet_of_ten")
def test_hosts_are_the_first_devices_of_the_fleet() -> None:
    hosts = fleet_hosts(TARGET, 4)
    assert [(host.name, host.target.host) for host in hosts] == list(FLEET[:4])
    assert all(host.target.username == "labops" for host in hosts)
    assert fleet_mode("asyncssh", 4, 3).wire_hosts(TARGET) == tuple(a for _, a in FLEET[:4])


def test_a_fleet_too_small_is_refused_with_the_setting_to_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fleet, "_fleet_of", lambda target: FLEET[:3])
    with pytest.raises(IterationError, match="DEVICE_FLEET_SIZE=10"):
        fleet_hosts(TARGET, 10)


def test_every_output_must_come_from_its_own_device() -> None:
    host = FleetHost("lab-r2", TARGET)
    assert check_host_output(host, "show version", show_version("lab-r2"))
    with pytest.raises(IterationError, match="not this device's answer"):
        check_host_output(host, "show version", show_version("lab-r1"))
    with pytest.raises(IterationError, match="% Invalid input"):
        check_host_output(host, "show version", "% Invalid input detected at '^' marker.")
    with pytest.raises(IterationError, match="empty output"):
        check_host_output(host, "show version", "  \n")
    # Other commands are checked as any output is (no hostname in them).
    assert check_host_output(host, "show clock", "*10:00:00.000 UTC Mon Nov 23 2026")


CALLS: list[str] = []
IN_FLIGHT: list[int] = [0, 0]
"""Hosts in flight now, and the most there ever were at once."""


def recording_host(target: Target, commands: Sequence[str]) -> list[str]:
    name = next(name for name, address in FLEET if address == target.host)
    CALLS.append(name)
    return [show_version(name) for _ in commands]


async def overlapping_host(target: Target, commands: Sequence[str]) -> list[str]:
    name = next(name for name, address in FLEET if address == target.host)
    IN_FLIGHT[0] += 1
    IN_FLIGHT[1] = max(IN_FLIGHT)
    await asyncio.sleep(0.01)  # every other host's coroutine starts meanwhile
    IN_FLIGHT[0] -= 1
    return [show_version(name) for _ in commands]


async def wrong_device_host(target: Target, commands: Sequence[str]) -> list[str]:
    return [show_version("lab-r1") for _ in commands]


async def _iterate(mode: Mode) -> list[str]:
    async with mode.session(TARGET) as session:
        return await session.run_iteration(["show version"])


@pytest.mark.usefixtures("fleet_of_ten")
def test_a_sequential_iteration_is_every_host_of_every_run_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    CALLS.clear()
    monkeypatch.setattr(paramiko_ssh, "fleet_host", recording_host)
    outputs = asyncio.run(_iterate(fleet_mode("paramiko", 3, 2)))
    assert CALLS == ["lab-r1", "lab-r2", "lab-r3"] * 2
    assert len(outputs) == 1
    assert "3 host(s)" in outputs[0]
    assert "2 run(s)" in outputs[0]


@pytest.mark.usefixtures("fleet_of_ten")
def test_hosts_at_once_overlap_within_a_run_and_each_output_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    IN_FLIGHT[:] = [0, 0]
    monkeypatch.setattr(asyncssh_exec, "fleet_host", overlapping_host)
    asyncio.run(_iterate(fleet_mode("asyncssh", 10, 2)))
    assert IN_FLIGHT == [0, 10]  # all ten hosts of a run at once, none left over
    monkeypatch.setattr(asyncssh_exec, "fleet_host", wrong_device_host)
    with pytest.raises(IterationError, match=r"lab-r2 .*not this device's answer"):
        asyncio.run(_iterate(fleet_mode("asyncssh", 2, 1)))


# --- series identity: results, InfluxDB, Pushgateway, CSV -----------------------------------


def _fleet_run() -> RunResult:
    modes = [
        mode_entry(MODE, "asyncssh", [300.0], parameters={"hosts": h, "repeats": r})
        for h, r in ((1, 3), (10, 3), (10, 10))
    ]
    return RunResult.model_validate(run_document("r", "reproduce-ssh-libraries", "campus", modes))


def test_hosts_and_repeats_keep_series_apart() -> None:
    run = _fleet_run()
    tags = [mode_tags(run, mode) for mode in run.modes]
    assert [(tag["hosts"], tag["repeats"]) for tag in tags] == [
        ("1", "3"),
        ("10", "3"),
        ("10", "10"),
    ]
    assert len({tag["series"] for tag in tags}) == 3
    assert parameter_fields(run.modes[1]) == {"parameter_hosts": 10, "parameter_repeats": 3}
    exposition = generate_latest(run_registry(run)).decode()
    p50 = [line for line in exposition.splitlines() if line.startswith("transport_bench_mode_p50")]
    assert len(p50) == 3
    assert any('hosts="10"' in line and 'repeats="10"' in line for line in p50)
    assert {"hosts", "repeats"} <= set(PARAMETER_COLUMNS)


# --- the capture over several addresses -----------------------------------------------------


def _accepts(program: list[tuple[int, int, int, int]], frame: bytes) -> bool:
    return run(program, Packet(frame)) > 0


def test_the_capture_filter_covers_every_fleet_address() -> None:
    runner = "198.18.100.9"
    fleet = [address for _, address in FLEET]
    program = bpf.tcp_filter(fleet, (22,))
    for address in fleet:
        assert _accepts(program, ETHERNET + ipv4_tcp(runner, address, 40000, 22))
        assert _accepts(program, ETHERNET + ipv4_tcp(address, runner, 22, 40000))
    assert not _accepts(program, ETHERNET + ipv4_tcp(runner, "198.18.100.140", 40000, 22))
    assert not _accepts(program, ETHERNET + ipv4_tcp(runner, fleet[3], 40000, 443))
    assert bpf.describe(fleet[:2], (22,)) == (
        "tcp and (host 198.18.100.129 or host 198.18.100.130) and (port 22)"
    )
    # One address is the filter it always was.
    assert bpf.tcp_filter([fleet[0]], (22,)) == bpf.tcp_filter(fleet[0], (22,))
    assert bpf.describe(fleet[0], (22,)) == "tcp and host 198.18.100.129 and (port 22)"
    with pytest.raises(ValueError, match="both IP versions"):
        bpf.tcp_filter([fleet[0], "2001:db8::1"], (22,))


# --- published data and tables --------------------------------------------------------------


def test_published_figures_are_the_posts_table() -> None:
    experiment = load_experiment("ssh-libraries")
    assert experiment.publication_keys == ["nos"]
    assert len(experiment.figures) == 46  # 10 rows x 5 libraries, less 4 Cumulus rows' scrapli
    value = {
        (f.case["nos"], f.case["hosts"], f.case["repeats"], f.subject): f.value
        for f in experiment.figures
    }
    assert value[("NX-OS", 4, 10, "netmiko")] == 91028.3
    assert value[("Cumulus", 10, 3, "asyncssh")] == 4895.7
    assert value[("Junos", 2, 10, "ssh2-python")] == 3117.8
    assert ("Cumulus", 1, 3, "scrapli") not in value


def _lab_runs() -> list[dict[str, Any]]:
    """A synthetic lab run: asyncssh fastest, netmiko slowest, in every case."""
    p50 = {
        "asyncssh": 100.0,
        "scrapli": 150.0,
        "ssh2-python": 200.0,
        "paramiko": 300.0,
        "netmiko": 900.0,
    }
    modes = [
        mode_entry(MODE, client, [value * h * r], parameters={"hosts": h, "repeats": r})
        for client, value in p50.items()
        for h in (1, 2, 4, 10)
        for r in (3, 10)
    ]
    return [run_document("lab-1", "reproduce-ssh-libraries", "campus", modes, rtt_ms=2.0)]


def test_each_publication_case_gets_the_lab_figure_of_its_hosts_and_repeats() -> None:
    experiment = load_experiment("ssh-libraries")
    built = sections(experiment, _lab_runs())
    assert len(built) == 10  # one table per published row
    by_case = {tuple(section.case.values()): section for section in built}
    nxos = by_case[("NX-OS", 4, 10)]
    cumulus = by_case[("Cumulus", 10, 3)]
    assert [row.lab.value for row in nxos.rows if row.lab] == [
        4000.0,
        6000.0,
        8000.0,
        12000.0,
        36000.0,
    ]
    assert [row.subject.name for row in cumulus.rows] == [
        "asyncssh",
        "ssh2-python",
        "paramiko",
        "netmiko",
    ]
    assert cumulus.rows[0].lab is not None
    assert cumulus.rows[0].lab.value == 3000.0
    # The post has paramiko ahead of ssh2-python on Cumulus 10 x 3; the synthetic lab not.
    assert cumulus.reversals == [("paramiko", "ssh2-python")]
    assert nxos.ranking_holds
    text = comparison_markdown([experiment], _lab_runs(), "bench-runner reproduce-tables x", "now")
    assert "### nos=NX-OS, hosts=4, repeats=10 · p50 (ms), lower is better" in text
