"""The load package's pure parts: inventory, statistics, knee, NETCONF framing, sinks, CLI."""

import ast
import json
from pathlib import Path

import pytest

from bench_runner.protocols.netconf.errors import NetconfError
from bench_runner.protocols.netconf.framing import END_OF_MESSAGE, encode_chunked
from bench_runner.sinks.line_protocol import Point
from bench_runner.sinks.spool import INFLUX_SUFFIX, PUSHGATEWAY_SUFFIX, Spool
from transport_load import cli, knee, netconf, stream_capacity
from transport_load.context import parse_device_metrics, parse_gnmi_metrics, rtt_verified
from transport_load.inventory import (
    Device,
    InventoryError,
    check_lab_only,
    device_for,
    lab_device,
    parse_inventory,
)
from transport_load.sinks import InfluxSink, PushgatewaySink, Sample, exposition
from transport_load.ssh import OperationError, check_cli_output
from transport_load.stats import Bucket, Collector, round_ms, summarize
from transport_load.transports import (
    TRANSPORTS,
    parse_command,
    parse_intervals,
    parse_steps,
    parse_transports,
)

FLEET = """
lab: true
targets:
- {name: lab-r1, host: 198.18.100.129, platform: cisco_iosxe, metrics_url: "http://198.18.100.129:9100"}
- {name: lab-r2, host: 198.18.100.130}
- {name: lab-r3, host: 198.18.100.131, ssh_port: 2201}
"""


def test_inventory_is_the_runners_format() -> None:
    inventory = parse_inventory(FLEET)
    assert inventory.lab
    assert [d.name for d in inventory.devices] == ["lab-r1", "lab-r2", "lab-r3"]
    assert inventory.devices[2].ssh_port == 2201
    assert inventory.devices[0].metrics_url == "http://198.18.100.129:9100"
    assert inventory.devices[0].h3_port == 443
    [quic] = parse_inventory("lab: true\ntargets: [{name: a, host: h, h3_port: 8443}]").devices
    assert quic.h3_port == 8443
    assert lab_device({"DEVICE_H3_PORT": "4433"}).devices[0].h3_port == 4433


@pytest.mark.parametrize(
    "text",
    [
        "targets: []",
        "lab: true",
        "targets: [{name: a}]",
        "targets: [{name: a, host: h, ssh_port: 0}]",
        "targets: [{name: a, host: h, password: secret}]",
        "targets: [{name: a, host: h}, {name: a, host: i}]",
    ],
)
def test_bad_inventories_are_refused(text: str) -> None:
    with pytest.raises(InventoryError):
        parse_inventory(text)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("lab: false\ntargets: [{name: a, host: 198.18.100.129}]", "lab: true"),
        ("lab: true\ntargets: [{name: a, host: 10.0.0.1}]", "not a lab host"),
        ("lab: true\ntargets: [{name: a, host: router.example.com}]", "not a lab host"),
    ],
)
def test_load_refuses_anything_but_the_labs_devices(text: str, problem: str) -> None:
    with pytest.raises(InventoryError, match=problem):
        check_lab_only(parse_inventory(text))
    check_lab_only(parse_inventory(FLEET))
    check_lab_only(lab_device({"DEVICE_HOST": "device"}))


def test_credentials_come_from_the_environment_only() -> None:
    device = Device("r1", "h")
    assert device.credentials({"DEVICE_USERNAME": "u", "DEVICE_PASSWORD": "p"}) == ("u", "p")
    with pytest.raises(InventoryError, match="DEVICE_PASSWORD"):
        device.credentials({"DEVICE_USERNAME": "u"})


def test_users_spread_over_the_fleet_across_workers() -> None:
    devices = parse_inventory(FLEET).devices
    # two workers, three users each: every device gets two users, no worker piles on one
    picked = [device_for(devices, n, w, 2).name for w in (0, 1) for n in range(3)]
    assert sorted(picked) == ["lab-r1", "lab-r1", "lab-r2", "lab-r2", "lab-r3", "lab-r3"]
    assert lab_device({"DEVICE_HOST": "device"}).devices[0].host == "device"


def test_rounding_keeps_three_significant_digits() -> None:
    assert round_ms(12.345) == 12.3
    assert round_ms(1234.5) == 1230
    assert round_ms(0.012345) == 0.0123
    assert round_ms(0) == 0.0


def test_percentiles_are_nearest_rank() -> None:
    bucket = Bucket()
    for ms in range(1, 101):
        bucket.add(float(ms), 10, failed=ms == 100)
    assert bucket.percentile(0.5) == 50
    assert bucket.percentile(0.95) == 95
    assert bucket.percentile(0.99) == 99
    assert bucket.failures == 1
    assert bucket.bytes == 1000
    assert Bucket().percentile(0.5) is None
    figures = summarize(bucket, 10.0)
    assert figures["ops_per_s"] == 10.0
    assert figures["mean_ms"] == pytest.approx(50.5)


def test_worker_buckets_merge_exactly_on_the_master() -> None:
    worker_a, worker_b, master = Collector(), Collector(), Collector()
    key = ("ssh-reuse", "ssh/reuse-conn", "paramiko 5.1.0")
    for n in range(50):
        worker_a.record(1000.2, key, float(n + 1), 5, failed=False, device="lab-r1")
        worker_b.record(1000.7, key, float(n + 51), 5, failed=n == 0, device="lab-r2")
    worker_b.record(1001.1, key, 3.0, 5, failed=False, device="lab-r2")
    # through msgpack-like plain data, as Locust carries it
    master.merge_wire(json.loads(json.dumps(worker_a.drain())))
    master.merge_wire(json.loads(json.dumps(worker_b.drain())))
    assert worker_a.seconds == {}
    bucket = master.seconds[1000][key]
    assert (bucket.requests, bucket.failures, bucket.percentile(0.5)) == (100, 1, 50)
    assert master.devices == {"lab-r1": [50, 0], "lab-r2": [51, 1]}
    assert [s for s, _, _ in master.settled(1001)] == [1000]
    assert master.window(1000, 1002)[key].requests == 101


def test_knee_is_where_throughput_reaches_ninety_percent_of_its_best() -> None:
    steps = [
        knee.Step(1, 100, 10),
        knee.Step(10, 900, 11),
        knee.Step(50, 1500, 33),
        knee.Step(100, 1550, 64),
        knee.Step(200, 1540, 130),
    ]
    found = knee.find_knee(steps)
    assert found is not None
    assert (found.users, found.ops_per_s) == (50, 1500)  # 1500 >= 0.9 x 1550
    assert found.saturated_at_users == 100
    assert found.max_power_users == 10
    assert knee.find_knee([]) is None
    assert knee.find_knee([knee.Step(1, 10, 1), knee.Step(2, 20, 1)]) == knee.Knee(
        2, 20, 1, None, 2
    )


class FakeChannel:
    def __init__(self, incoming: bytes) -> None:
        self.incoming = incoming
        self.sent = b""

    def sendall(self, data: bytes) -> None:
        self.sent += data

    def recv(self, nbytes: int) -> bytes:
        data, self.incoming = self.incoming[:7], self.incoming[7:]  # small reads
        return data


SERVER_HELLO = (
    b'<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities>'
    b"<capability>urn:ietf:params:netconf:base:1.0</capability>"
    b"<capability>urn:ietf:params:netconf:base:1.1</capability></capabilities>"
    b"<session-id>4</session-id></hello>]]>]]>"
)
REPLY = b'<rpc-reply message-id="1" xmlns="x"><data><payload>aaaa</payload></data></rpc-reply>'


def test_netconf_chunked_session() -> None:
    body = encode_chunked(REPLY, max_chunk_size=30)
    channel = FakeChannel(SERVER_HELLO + body)
    session = netconf.NetconfSession(channel, "1.1")
    assert session.chunked
    assert session.get(1024) == len(REPLY)
    assert b"base:1.1" in channel.sent
    assert b"\n#" in channel.sent
    assert b"<size>1024</size>" in channel.sent


def test_netconf_end_of_message_framing() -> None:
    channel = FakeChannel(SERVER_HELLO + REPLY + END_OF_MESSAGE)
    session = netconf.NetconfSession(channel, "1.0")
    assert not session.chunked
    assert b"base:1.1" not in channel.sent
    assert session.get(10) == len(REPLY)


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (REPLY.replace(b'"1"', b'"2"'), "message-id"),
        (REPLY.replace(b"<data>", b"<rpc-error>"), "rpc-error"),
        (b'<rpc-reply message-id="1"><ok/></rpc-reply>', "without <data>"),
    ],
)
def test_netconf_bad_replies_fail(reply: bytes, problem: str) -> None:
    channel = FakeChannel(SERVER_HELLO + reply + END_OF_MESSAGE)
    session = netconf.NetconfSession(channel, "1.0")
    with pytest.raises(NetconfError, match=problem):
        session.get(10)


def test_netconf_broken_framing_fails() -> None:
    session = netconf.NetconfSession(FakeChannel(SERVER_HELLO + b"\n#0\n"), "1.1")
    with pytest.raises(NetconfError, match="bad chunk size b'0'"):
        session.get(10)


def test_netconf_closed_session_fails() -> None:
    with pytest.raises(OperationError, match="closed"):
        netconf.NetconfSession(FakeChannel(b"<hello/>"), "1.1")


def test_cli_output_checks() -> None:
    assert check_cli_output("show version", "Cisco IOS XE") == "Cisco IOS XE"
    with pytest.raises(OperationError):
        check_cli_output("show versio", "% Invalid input detected")
    with pytest.raises(OperationError):
        check_cli_output("show version", " \n")


def test_transports_and_steps() -> None:
    assert len(parse_transports("all")) == len(TRANSPORTS) == 16
    assert [t.key for t in parse_transports("restconf, ssh-pty,restconf")] == [
        "restconf",
        "ssh-pty",
    ]
    with pytest.raises(ValueError, match="unknown"):
        parse_transports("telnet")
    assert parse_steps("1,10,50") == [1, 10, 50]
    with pytest.raises(ValueError, match="positive"):
        parse_steps("0")
    # each NETCONF framing is its own request type under the one mode name
    assert {TRANSPORTS["netconf-1.0"].mode, TRANSPORTS["netconf-1.1"].mode} == {
        "netconf/reuse-session"
    }


def test_influx_outage_spools_in_the_runners_format(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    sink = InfluxSink("http://127.0.0.1:9", "db", "u", "p", spool, "load-x")
    point = Point("load", {"run_id": "load-x", "mode": "ssh/reuse-conn"}, {"requests": 3}, 10**18)
    sink.write([point, Point("load", {"run_id": "load-x"}, {"requests": 1}, 10**18 + 1)])
    [spooled] = spool.pending(INFLUX_SUFFIX)
    assert spooled.read_text().splitlines()[0] == (
        "load,mode=ssh/reuse-conn,run_id=load-x requests=3i 1000000000000000000"
    )
    assert (sink.tally.points, sink.tally.delivered, sink.tally.spooled) == (2, 0, 2)


def test_pushgateway_final_push_spools_for_replay(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    sink = PushgatewaySink("http://127.0.0.1:9", spool, "load-x")
    text = exposition(
        [Sample("transport_lab_load_users", {"run_id": "load-x"}, 5.0)],
        {"transport_lab_load_users": ("gauge", "users")},
    )
    assert not sink.push(text)
    assert spool.pending(PUSHGATEWAY_SUFFIX) == []  # mid-run: the next push supersedes it
    assert not sink.push(text, final=True)
    [spooled] = spool.pending(PUSHGATEWAY_SUFFIX)
    payload = json.loads(spooled.read_text())
    assert payload["job"] == "transport_lab_load"
    assert payload["grouping_key"] == {"run_id": "load-x"}
    assert 'transport_lab_load_users{run_id="load-x"} 5.0' in payload["exposition"]


def test_exposition_escapes_labels() -> None:
    text = exposition([Sample("m", {"a": 'x"y\\z'}, 1.0), Sample("m", {}, 2.0)], {})
    assert 'm{a="x\\"y\\\\z"} 1.0' in text
    assert "\nm 2.0\n" in text


def test_device_metrics_and_rtt_rule() -> None:
    text = (
        "# HELP x\ndevice_container_cpu_seconds_total 6.5\n"
        "device_container_memory_bytes 1.6e+07\nother 1\n"
    )
    assert parse_device_metrics(text) == {
        "device_container_cpu_seconds_total": 6.5,
        "device_container_memory_bytes": 16000000.0,
    }
    assert rtt_verified(40.0, 40.9, 0.2)
    assert not rtt_verified(40.0, 80.0, 0.2)
    assert rtt_verified(None, 1.0, None) is None


def test_locust_command_line_is_bounded_and_writes_the_lab_files() -> None:
    args = cli.parser().parse_args(
        [
            "run",
            "--transport",
            "ssh-reuse,restconf",
            "--users",
            "20",
            "--duration",
            "2m",
            "--run-id",
            "load-t",
            "--results-dir",
            "/results",
        ]
    )
    argv = cli.locust_argv(args, "load-t")
    assert argv[:3] == ["locust", "-f", str(cli.PACKAGE_DIR / "locustfile.py")]
    assert "--headless" in argv
    assert argv[argv.index("-t") + 1] == "120s"
    assert argv[argv.index("--csv") + 1] == "/results/load-t/load/locust"
    assert "--csv-full-history" in argv
    assert argv[argv.index("--html") + 1] == "/results/load-t/load/report.html"
    assert argv[-2:] == ["SshReuseUser", "RestconfUser"]
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["run", "--duration", "2h"])


def test_sweep_and_master_command_lines() -> None:
    args = cli.parser().parse_args(
        ["sweep", "--transport", "https-keepalive", "--steps", "1,10", "--step-seconds", "20"]
    )
    argv = cli.locust_argv(args, "sweep-t")
    assert str(cli.PACKAGE_DIR / "locustfile_sweep.py") in argv
    assert argv[argv.index("-t") + 1] == "70s"  # 2 steps x 20 s + 30 s of margin
    assert argv[argv.index("--lab-steps") + 1] == "1,10"
    master = cli.locust_argv(cli.parser().parse_args(["master", "--workers", "2"]), "m")
    assert master[master.index("--expect-workers") + 1] == "2"
    worker = cli.locust_argv(cli.parser().parse_args(["worker", "--master-host", "lm"]), "m")
    assert worker[-3:] == ["--worker", "--master-host", "lm"]
    # the users run on workers: they get the run's command
    assert worker[worker.index("--lab-command") + 1] == "show version"


def test_a_run_names_its_command_and_plan() -> None:
    args = cli.parser().parse_args(
        ["sweep", "--command", " show payload 26624 ", "--plan", "reproduce-parallel-ssh"]
    )
    argv = cli.locust_argv(args, "s")
    assert argv[argv.index("--lab-command") + 1] == "show payload 26624"
    assert argv[argv.index("--lab-plan") + 1] == "reproduce-parallel-ssh"
    assert "--lab-plan" not in cli.locust_argv(cli.parser().parse_args(["run"]), "r")


@pytest.mark.parametrize("command", ["", "show version\nreload", "x" * 1025])
def test_a_bad_command_is_refused_before_locust_starts(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match="printable line"):
        parse_command(command)
    assert cli.main(["run", "--command", command]) == 2
    assert "command must be" in capsys.readouterr().err


def test_both_ssh_libraries_have_fresh_and_reused_exec_users() -> None:
    for library in ("", "-libssh2"):
        fresh, reuse = TRANSPORTS["ssh-fresh" + library], TRANSPORTS["ssh-reuse" + library]
        assert (fresh.mode, reuse.mode) == ("ssh/fresh-conn", "ssh/reuse-conn")
    assert TRANSPORTS["ssh-fresh-libssh2"].client == "parallel-ssh"


def _imports(path: Path) -> set[str]:
    """The package's modules ``path`` imports, those for type checking only included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "transport_load":
            found |= {f"transport_load.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.startswith("transport_load.")}


def test_no_module_imports_one_that_imports_it_back() -> None:
    """The package's imports form no cycle (lab.py calls results.py, which reads the state
    model from state.py): a module's dependencies never reach back to it."""
    package = Path(cli.__file__).parent
    graph = {f"transport_load.{path.stem}": _imports(path) for path in package.glob("*.py")}

    def reaches(start: str, target: str, seen: set[str]) -> bool:
        for module in graph.get(start, set()) - seen:
            seen.add(module)
            if module == target or reaches(module, target, seen):
                return True
        return False

    assert [module for module in graph if reaches(module, module, set())] == []


def test_gnmi_port_and_tls_verification_come_from_the_inventory() -> None:
    inventory = parse_inventory(
        "lab: true\ntargets:\n- {name: r1, host: r1, gnmi_port: 57400, gnmi_tls_verify: true}\n"
        "- {name: r2, host: r2}\n"
    )
    first, second = inventory.devices
    assert (first.gnmi_port, first.gnmi_tls_verify) == (57400, True)
    assert (second.gnmi_port, second.gnmi_tls_verify) == (9339, False)
    assert lab_device({"DEVICE_GNMI_PORT": "50051"}).devices[0].gnmi_port == 50051
    for bad in ("gnmi_port: 0", "gnmi_tls_verify: maybe"):
        with pytest.raises(InventoryError, match="gnmi"):
            parse_inventory(f"lab: true\ntargets:\n- {{name: r1, host: r1, {bad}}}\n")


def test_sample_intervals_are_milliseconds_from_the_devices_floor() -> None:
    assert parse_intervals("1000, 100,10,100") == [1000.0, 100.0, 10.0]
    for bad in ("", "0.5", "0", "-1"):
        with pytest.raises(ValueError, match="sample intervals"):
            parse_intervals(bad)


def test_the_devices_gnmi_counters_are_summed_over_their_labels() -> None:
    text = (
        "# HELP device_gnmi_subscriptions active\n"
        'device_gnmi_subscriptions{mode="once"} 0\n'
        'device_gnmi_subscriptions{mode="stream"} 42\n'
        'device_gnmi_updates_total{mode="stream"} 1.5e+06\n'
        'device_gnmi_updates_total{mode="poll"} 10\n'
        'device_gnmi_rpcs_total{rpc="Get",code="OK"} 7\n'
        "device_gnmi_dropped_subscriptions_total 3\n"
        "device_container_memory_bytes 1.6e+07\n"
    )
    assert parse_gnmi_metrics(text) == {
        "device_gnmi_subscriptions": 42.0,
        "device_gnmi_updates_total": 1500010.0,
        "device_gnmi_dropped_subscriptions_total": 3.0,
    }
    assert parse_gnmi_metrics("device_container_memory_bytes 1\n") == {}


def test_streams_fall_behind_on_rate_on_lag_or_on_a_dropped_stream() -> None:
    step = stream_capacity.StreamStep
    assert step(10, 100.0, 100.0, 3.0).expected_per_s == 100.0
    assert not step(10, 100.0, 95.0, 100.0).behind  # 95 % delivered, lag one interval
    assert step(10, 100.0, 94.9, 3.0).behind
    assert step(10, 100.0, 100.0, 100.1).behind
    assert step(10, 100.0, 100.0, 3.0, failures=1).behind
    assert step(10, 100.0, 0.0, None).behind
    found = stream_capacity.capacities(
        [
            step(1, 10.0, 100.0, 1.0),
            step(50, 10.0, 5000.0, 2.0),
            step(100, 10.0, 6000.0, 40.0),
            step(200, 10.0, 20000.0, 1.0),  # past the knee: not looked at
            step(100, 1.0, 10.0, 900.0),
            step(200, 100.0, 2000.0, 5.0),
        ]
    )
    assert [(c.interval_ms, c.held_streams, c.behind_at_streams) for c in found] == [
        (10.0, 50, 100),
        (1.0, None, 100),
        (100.0, 200, None),
    ]


def test_a_gnmi_sweep_runs_the_streams_once_per_interval() -> None:
    args = cli.parser().parse_args(
        [
            "sweep",
            "--transport",
            "https-keepalive,gnmi-stream",
            "--steps",
            "1,10",
            "--step-seconds",
            "20",
            "--gnmi-intervals",
            "1000,100,10",
        ]
    )
    argv = cli.locust_argv(args, "sweep-t")
    # https-keepalive's 2 steps, gnmi-stream's 2 steps at each of 3 intervals, 20 s each
    assert argv[argv.index("-t") + 1] == f"{(2 + 6) * 20 + 30}s"
    assert argv[argv.index("--lab-gnmi-intervals") + 1] == "1000,100,10"
    run = cli.parser().parse_args(["run", "--transport", "gnmi-stream", "--gnmi-interval-ms", "5"])
    assert cli.locust_argv(run, "r")[-1] == "GnmiStreamUser"
    assert "--lab-gnmi-interval-ms" in cli.locust_argv(run, "r")
    worker = cli.locust_argv(cli.parser().parse_args(["worker", "--gnmi-interval-ms", "5"]), "w")
    assert worker[worker.index("--lab-gnmi-interval-ms") + 1] == "5"
    with pytest.raises(ValueError, match="sample intervals"):
        cli.locust_argv(cli.parser().parse_args(["run", "--gnmi-interval-ms", "0.1"]), "r")
