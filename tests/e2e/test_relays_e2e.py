"""The remote site (docs/relays.md): a jump host (OpenSSH) and the head-end in front of the
test lab's fleet of 3, behind a WAN link of their own (netem-wan) while the device's netem is
the LAN. Every device is reached through both; a run of every relayed mode over the fleet
records both hops' verified RTTs; the round trips each hop carries follow the model: the jump
host brings the device's login across the WAN, the head-end keeps SSH's on the LAN, over HTTPS
and over HTTP/3 alike."""

import asyncio
import json
import os
import re
from typing import Any

import asyncssh
import httpx
import pytest

from bench_runner.modes import ALL_MODES, MODES_BY_NAME, Relay, Target
from bench_runner.modes.clients import scrapli_jump
from conftest import RESULTS_DIR, _run, _stamp, fleet_inventory

FLEET_SIZE = 3
WAN_MS = 30.0  # regional
LAN_PROFILE = "campus"
LAN_MS = 2.0
COMMANDS = ("show version", "show running-config")
JUMP_MODES = (
    "jump/fresh-conn",
    "jump/master-conn",
    "jump/reuse-conn",
    "jump/pty-fresh",
    "jump/pty-reuse",
)
PROXY_MODES = ("proxy/fresh-ssh", "proxy/pooled-ssh", "proxy/keep-alive")
PROXY_H3_MODES = ("proxy-h3/fresh-ssh", "proxy-h3/pooled-ssh", "proxy-h3/keep-alive")
HEADEND_MODES = PROXY_MODES + PROXY_H3_MODES
EXEC_KINDS = ("fresh-conn", "master-conn", "reuse-conn")
RELAYED_MODES = JUMP_MODES + HEADEND_MODES
ITERATIONS, WARMUP = 3, 1


INVENTORY = "relays-fleet.yaml"


def _inventory() -> list[dict[str, Any]]:
    targets: list[dict[str, Any]] = fleet_inventory(INVENTORY)[1]["targets"]
    assert len(targets) == FLEET_SIZE
    return targets


def _hostname(output: str) -> str:
    match = re.search(r"^hostname (\S+)", output, re.MULTILINE)
    assert match, output[:300]
    return match.group(1)


def _login(host: str, user: str, secret: str, **options: Any) -> Any:
    """A password login with nothing from the local SSH setup (``options``: e.g. tunnel=)."""
    return asyncssh.connect(
        host,
        username=os.environ[user],
        password=os.environ[secret],
        known_hosts=None,
        client_keys=None,
        agent_path=None,
        config=[],
        **options,
    )


def _jump_host() -> Any:
    return _login(os.environ["JUMP_HOST"], "JUMP_USERNAME", "JUMP_PASSWORD")


async def _through_jump_host(address: str) -> str:
    async with (
        _jump_host() as jump,
        _login(address, "DEVICE_USERNAME", "DEVICE_PASSWORD", tunnel=jump) as device,
    ):
        result = await device.run("show running-config", check=True)
        return str(result.stdout)


def test_every_device_is_reached_through_the_jump_host_and_the_head_end() -> None:
    with httpx.Client(
        base_url=f"https://{os.environ['HEADEND_HOST']}",
        auth=(os.environ["HEADEND_USERNAME"], os.environ["HEADEND_PASSWORD"]),
        verify=False,
        timeout=30,
    ) as headend:
        for target in _inventory():
            assert _hostname(asyncio.run(_through_jump_host(target["host"]))) == target["name"]
            for ssh in ("fresh", "pooled"):
                answer = headend.post(
                    f"/devices/{target['host']}/exec?ssh={ssh}",
                    json={"commands": list(COMMANDS)},
                )
                assert answer.status_code == 200, answer.text
                body = answer.json()
                assert body["exit_statuses"] == [0, 0]
                assert _hostname(body["outputs"][1]) == target["name"]
                assert body["lan"]["round_trips"] >= 2 * len(COMMANDS)


def test_the_jump_host_and_the_head_end_refuse_other_places() -> None:
    with httpx.Client(
        base_url=f"https://{os.environ['HEADEND_HOST']}",
        auth=(os.environ["HEADEND_USERNAME"], os.environ["HEADEND_PASSWORD"]),
        verify=False,
        timeout=30,
    ) as headend:
        refused = headend.post("/devices/influxdb/exec", json={"commands": ["show version"]})
        assert refused.status_code == 403, refused.text
        unauthenticated = httpx.post(
            f"https://{os.environ['HEADEND_HOST']}/devices/device/exec",
            json={"commands": ["show version"]},
            verify=False,
            timeout=30,
        )
        assert unauthenticated.status_code == 401

    async def forward_to_influxdb() -> None:
        async with _jump_host() as jump:
            await jump.open_connection("influxdb", 8086)

    with pytest.raises(asyncssh.ChannelOpenError):
        asyncio.run(forward_to_influxdb())


def _fleet_run(
    name: str, *choice: str, iterations: int = ITERATIONS, warmup: int = WARMUP
) -> tuple[str, list[dict[str, Any]]]:
    """A run over the fleet of the modes (and clients) ``choice`` names, at regional behind
    campus: its run id and the fleet's targets."""
    targets = _inventory()
    run_id = f"{name}-{_stamp()}"
    proc = _run(
        run_id,
        *("--targets", str(RESULTS_DIR / INVENTORY), "--no-sinks"),
        *("--profile", "regional", "--lan-profile", LAN_PROFILE),
        *choice,
        *("--commands", ";".join(COMMANDS)),
        *("--iterations", str(iterations), "--warmup", str(warmup)),
    ).proc
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return run_id, targets


@pytest.fixture(scope="module")
def relayed_fleet_run() -> tuple[str, list[dict[str, Any]]]:
    """Every relayed mode with its floor client."""
    return _fleet_run("relays", "--modes", ",".join(RELAYED_MODES))


def _results(run_id: str, target: dict[str, Any]) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(
        (RESULTS_DIR / f"{run_id}-{target['name']}" / "results.json").read_text()
    )
    return document


def _check_measured_behind_both_hops(mode: dict[str, Any]) -> None:
    """Measured, with both hops' RTTs verified and the WAN counted; no iteration beats its
    WAN round trips at the WAN's RTT (physics)."""
    assert mode["ok"], (mode["mode"], mode["error_messages"])
    wan, lan = mode["rtt_check"], mode["lan_rtt"]["rtt_check"]
    assert wan["passed"], wan
    assert lan["passed"], lan
    assert abs(wan["added_rtt_ms"] - WAN_MS) <= wan["tolerance_ms"], wan
    assert abs(lan["added_rtt_ms"] - LAN_MS) <= lan["tolerance_ms"], lan
    assert mode["wire"]["available"], mode["wire"]
    floor_ms = mode["min_round_trips"] * WAN_MS * 0.98
    assert min(mode["samples_ms"]) >= floor_ms, (mode["mode"], mode["samples_ms"])


def test_each_device_is_measured_behind_both_hops_with_both_rtts_verified(
    relayed_fleet_run: tuple[str, list[dict[str, Any]]],
) -> None:
    run_id, targets = relayed_fleet_run
    for target in targets:
        results = _results(run_id, target)
        assert results["profile"]["name"] == "regional"
        assert results["relay"]["lan_profile"]["name"] == LAN_PROFILE
        assert results["target"]["host"] == target["host"]
        assert {m["mode"] for m in results["modes"]} == set(RELAYED_MODES)
        for mode in results["modes"]:
            _check_measured_behind_both_hops(mode)


def test_the_round_trips_of_each_hop_follow_the_model(
    relayed_fleet_run: tuple[str, list[dict[str, Any]]],
) -> None:
    """Counted on the WAN by the runner's capture, on the LAN by the head-end and, through the
    jump host, on the device's session inside its channel: the jump host carries the device's
    login across the WAN (a fresh pair of logins costs at least the jump host's 3 more than a
    login through a kept jump connection, per command, which the LAN never sees), while the
    head-end keeps the WAN at the HTTP exchange whatever SSH does on the LAN, where a
    pooled connection saves the login. Over HTTP/3 a kept connection saves the QUIC handshake;
    a new connection's count may hold one more than it waits for (quic-go's delayed ACK while
    the head-end works, proxy.yaml's evidence), so only the kept one's saving is compared. The
    WAN's round trips also bound the time outside the head-end, physics whatever the count."""
    run_id, targets = relayed_fleet_run
    n = len(COMMANDS)
    for target in targets:
        modes = {m["mode"]: m for m in _results(run_id, target)["modes"]}
        wan = {name: modes[name]["wire"]["p50"]["round_trips"] for name in modes}
        for name, mode in modes.items():
            assert wan[name] >= mode["min_round_trips"], (name, wan[name])
        assert wan["jump/fresh-conn"] - wan["jump/master-conn"] >= 3 * n, wan
        assert wan["jump/master-conn"] >= 4 * n, wan
        assert wan["jump/reuse-conn"] < wan["jump/master-conn"], wan
        assert wan["proxy/fresh-ssh"] == wan["proxy/pooled-ssh"], wan
        assert wan["proxy/keep-alive"] < wan["proxy/pooled-ssh"], wan
        assert wan["proxy-h3/keep-alive"] < wan["proxy-h3/fresh-ssh"], wan
        for name in HEADEND_MODES:
            outside = [it["wan_and_client"] for it in modes[name]["phases"]["per_iteration"]]
            floor_ms = modes[name]["min_round_trips"] * WAN_MS * 0.98
            assert min(outside) >= floor_ms, (name, outside)
        lan = {name: modes[name]["lan_round_trips"] for name in HEADEND_MODES}
        assert all(counted is not None for counted in lan.values()), lan
        for name in HEADEND_MODES:
            assert min(lan[name]["per_iteration"]) >= 2 * n, lan
        for proxy in ("proxy", "proxy-h3"):
            assert lan[f"{proxy}/fresh-ssh"]["p50"] >= lan[f"{proxy}/pooled-ssh"]["p50"] + 3, lan
        # Through the jump host the LAN carries the device's session (counted on it inside
        # the channel) and the jump host's connect to the device, never the jump host's login.
        jump_lan = {name: modes[name]["lan_round_trips"] for name in JUMP_MODES}
        assert all(counted is not None for counted in jump_lan.values()), jump_lan
        lan_p50 = {name: counted["p50"] for name, counted in jump_lan.items()}
        assert min(min(counted["per_iteration"]) for counted in jump_lan.values()) >= n, jump_lan
        assert abs(lan_p50["jump/fresh-conn"] - lan_p50["jump/master-conn"]) <= n, lan_p50
        assert wan["jump/fresh-conn"] - lan_p50["jump/fresh-conn"] >= 2 * n, (wan, lan_p50)
        assert lan_p50["jump/reuse-conn"] < lan_p50["jump/master-conn"], lan_p50


HOP_PARTS_APART = (
    ("wan_network", "client", "stall", "recovery", "lan_network", "relay", "device"),
    ("wan_network", "client", "stall", "recovery", "lan_network", "relay_and_device"),
    ("wan_network", "client", "stall", "recovery", "beyond_wan"),
)
"""Parts of the hop split that do not overlap (bench_runner/hop_split.py)."""


def test_each_relayed_iteration_is_split_by_hop_within_its_wall_time(
    relayed_fleet_run: tuple[str, list[dict[str, Any]]],
) -> None:
    """The time split's part behind the WAN is cut into the LAN network (the counted LAN
    round trips times the verified LAN RTT, clipped to what it is cut from), the relay and
    the device: the head-end times its LAN work, so its own time is told from the device's;
    the jump host's is not (one part with the device's). No set of parts that do not overlap
    adds up to more than the iteration."""
    run_id, targets = relayed_fleet_run
    for target in targets:
        for mode in _results(run_id, target)["modes"]:
            name, hops = mode["mode"], mode["hop_split"]
            assert hops is not None, name
            lan_rtt_ms = mode["lan_rtt"]["verified_rtt_ms"]
            assert hops["lan_rtt_ms"] == lan_rtt_ms, name
            walls = mode["samples_ms"]
            splits = mode["time_split"]["per_iteration"]
            counted = mode["lan_round_trips"]["per_iteration"]
            phases = mode["phases"]["per_iteration"]
            per_iteration = hops["per_iteration"]
            assert len(per_iteration) == len(splits) == len(walls) == len(counted), name
            for hop, split, wall, round_trips, phase in zip(
                per_iteration, splits, walls, counted, phases, strict=True
            ):
                for parts in HOP_PARTS_APART:
                    total = sum(hop[f"{part}_ms"] or 0.0 for part in parts)
                    assert total <= wall + 1e-6, (name, parts, hop, wall)
                assert hop["wan_network_ms"] == split["network_ms"], name
                assert hop["beyond_wan_ms"] == split["device_ms"], name
                cut_from = hop["beyond_wan_ms"]
                if name in HEADEND_MODES:
                    lan_work = phase.get("lan_connect", 0.0) + phase["lan_commands"]
                    cut_from = min(lan_work, cut_from)
                    assert hop["relay_ms"] is not None, (name, hop)
                    assert hop["device_ms"] is not None, (name, hop)
                    assert hop["relay_ms"] + hop["device_ms"] == pytest.approx(
                        hop["relay_and_device_ms"]
                    ), (name, hop)
                else:
                    assert (hop["relay_ms"], hop["device_ms"]) == (None, None), (name, hop)
                assert hop["lan_network_ms"] == pytest.approx(
                    min(round_trips * lan_rtt_ms, cut_from)
                ), (name, hop, round_trips)
                assert hop["lan_network_ms"] + hop["relay_and_device_ms"] == pytest.approx(
                    hop["beyond_wan_ms"]
                ), (name, hop)
            assert set(hops["p50_ms"]) >= {"wan_network", "lan_network", "relay_and_device"}


def test_http3_to_the_head_end_is_quic_go_over_udp_with_its_own_accounts(
    relayed_fleet_run: tuple[str, list[dict[str, Any]]],
) -> None:
    """The head-end's HTTP/3 modes: timed over UDP, their RTT probed with QUIC version
    negotiation, a connection per iteration (the warm-up's too) or one kept, each TLS 1.3 with
    h3 as quic-go reports it, and every iteration's loss recovery counted by quic-go (a QUIC
    capture cannot)."""
    run_id, targets = relayed_fleet_run
    for target in targets:
        modes = {m["mode"]: m for m in _results(run_id, target)["modes"]}
        for name in PROXY_H3_MODES:
            mode = modes[name]
            assert mode["client"] == "quic-go", name
            assert mode["rtt_probe"]["method"] == "quic-version-negotiation", name
            assert mode["wire"]["filter"].startswith("udp "), mode["wire"]["filter"]
            handshakes = mode["handshakes"]
            assert handshakes["available"], (name, handshakes["reason"])
            connections = 1 if name == "proxy-h3/keep-alive" else WARMUP + ITERATIONS
            assert handshakes["connections"] == connections, (name, handshakes)
            parameters = handshakes["parameters"]
            assert parameters["tls_version"]["values"] == {"TLSv1.3": connections}, name
            alpn = parameters["tls_alpn"]
            assert (alpn["values"], alpn["source"]) == ({"h3": connections}, "library"), name
            for counted in mode["wire"]["per_iteration"]:
                assert counted["data_segments_out"] >= 1, (name, counted)


SCRAPLI_JUMP = ("jump/pty-fresh", "scrapli-system")
"""scrapli's own way through the jump host (its system transport given an ssh_config with
ProxyJump), in the one jump mode it models."""
JUMP_LIBRARIES = ("paramiko", "openssh", "netmiko", "scrapli-system")
"""Each library's own way through the jump host: paramiko's direct-tcpip channel, OpenSSH's
ProxyCommand ssh -W (over a ControlMaster or not), netmiko's sock, scrapli's ProxyJump."""
LAN_UNCOUNTED = {"openssh", "scrapli-system"}
"""The device's session is inside ssh's processes: its LAN round trips are not counted."""
LIBRARY_ITERATIONS = 2
"""Without a warm-up: the rows are checked for their counts and the physics floor only."""


async def _scrapli_through_jump_host(address: str) -> list[str]:
    relay = Relay(
        *(os.environ["JUMP_HOST"], 22, os.environ["JUMP_USERNAME"], os.environ["JUMP_PASSWORD"]),
        *(os.environ["HEADEND_HOST"], 443, "", ""),  # the head-end is not asked here
    )
    target = Target(
        *(address, 22, 443, os.environ["DEVICE_USERNAME"], os.environ["DEVICE_PASSWORD"]),
        relay=relay,
    )
    async with scrapli_jump.pty_fresh(MODES_BY_NAME[SCRAPLI_JUMP[0]], target) as session:
        return await session.run_iteration(COMMANDS)


def test_scrapli_reaches_every_device_through_the_jump_host() -> None:
    """Each hop's own password: the jump host's from askpass, the device's typed by scrapli;
    the answer is the device's own configuration."""
    for target in _inventory():
        outputs = asyncio.run(_scrapli_through_jump_host(target["host"]))
        assert "Cisco IOS XE Software" in outputs[0], outputs[0][:300]
        assert _hostname(outputs[1]) == target["name"]


@pytest.fixture(scope="module")
def library_jump_run() -> tuple[str, list[dict[str, Any]]]:
    """The libraries' jump rows (the floor client's are relayed_fleet_run's)."""
    return _fleet_run(
        "relays-libraries",
        *("--modes", ",".join(JUMP_MODES[:4]), "--clients", ",".join(JUMP_LIBRARIES)),
        iterations=LIBRARY_ITERATIONS,
        warmup=0,
    )


def test_each_library_reaches_every_device_through_the_jump_host(
    library_jump_run: tuple[str, list[dict[str, Any]]],
) -> None:
    """Every row the catalog has for these libraries measured on every device, behind both
    hops with both RTTs verified; the LAN counted where the client holds the device's
    session (at least the commands' exchanges cross it), null where ssh's processes do."""
    run_id, targets = library_jump_run
    rows = {(m.name, m.client) for m in ALL_MODES if m.relayed and m.client in JUMP_LIBRARIES}
    assert {client for _, client in rows} == set(JUMP_LIBRARIES), rows
    for target in targets:
        results = _results(run_id, target)
        assert results["target"]["host"] == target["host"]
        assert {(m["mode"], m["client"]) for m in results["modes"]} == rows
        for mode in results["modes"]:
            _check_measured_behind_both_hops(mode)
            counted = mode["wire"]["per_iteration"]
            assert len(counted) == LIBRARY_ITERATIONS, (mode["mode"], mode["client"])
            lan = mode["lan_round_trips"]
            if mode["client"] in LAN_UNCOUNTED:
                assert lan is None, (mode["mode"], mode["client"], lan)
            else:
                assert min(lan["per_iteration"]) >= len(COMMANDS), (mode["mode"], lan)


def test_the_libraries_pay_the_jump_host_as_the_model_says(
    library_jump_run: tuple[str, list[dict[str, Any]]],
) -> None:
    """On the WAN, counted by the capture: no iteration under the row's floor; a new login to
    the jump host per command costs at least 3 round trips a command more than one kept
    (ControlMaster, a kept Transport), which the LAN never sees; a device login per command
    costs more than an exec channel on a kept one. A PTY session through the jump host pays
    its row's figure (the jump host's login and the direct-tcpip open before the device's
    session): a busy machine splits flights and only adds (scrapli counted 26 in 1 of 27
    iterations beside four busy loops, against 24), and a flight joined takes one away, so
    each device's fewest is at least one under the figure and the fleet's at most one over."""
    run_id, targets = library_jump_run
    n = len(COMMANDS)
    fewest: dict[tuple[str, str], list[int]] = {}
    expected: dict[tuple[str, str], int] = {}
    for target in targets:
        modes = {(m["mode"], m["client"]): m for m in _results(run_id, target)["modes"]}
        wan = {row: mode["wire"]["p50"]["round_trips"] for row, mode in modes.items()}
        for row, mode in modes.items():
            counted = [it["round_trips"] for it in mode["wire"]["per_iteration"]]
            assert min(counted) >= mode["min_round_trips"], (row, counted)
            fewest.setdefault(row, []).append(min(counted))
            expected[row] = mode["expected_round_trips"]
        for client in ("paramiko", "openssh"):
            fresh, master, reuse = (wan[(f"jump/{kind}", client)] for kind in EXEC_KINDS)
            assert fresh - master >= 3 * n, (client, wan)
            assert master >= 4 * n, (client, wan)
            assert reuse < master, (client, wan)
        lan = {
            kind: modes[(f"jump/{kind}", "paramiko")]["lan_round_trips"]["p50"]
            for kind in EXEC_KINDS
        }
        assert abs(lan["fresh-conn"] - lan["master-conn"]) <= n, lan
        assert lan["reuse-conn"] < lan["master-conn"], lan
    for client in ("netmiko", "scrapli-system"):
        row = ("jump/pty-fresh", client)
        assert min(fewest[row]) >= expected[row] - 1, (row, expected[row], fewest[row])
        assert min(fewest[row]) <= expected[row] + 1, (row, expected[row], fewest[row])
    scrapli = _results(run_id, targets[0])["modes"]
    (row,) = [mode for mode in scrapli if (mode["mode"], mode["client"]) == SCRAPLI_JUMP]
    assert "transport system: OpenSSH" in row["client_version"], row["client_version"]
    assert set(row["phases"]["p50_ms"]) == {"connect", "commands", "close"}
