"""The RESTCONF modes and netconf/get-config: their catalog shape, the encoding sweep, and
what their sessions send, driven against an in-process stand-in of the device (httpx's
MockTransport for RESTCONF, a fake SSH process for NETCONF)."""

import asyncio
import json
from typing import Any

import httpx
import pytest

from bench_runner.cli import plan_overrides, run
from bench_runner.lab_run import select
from bench_runner.modes import MODES_BY_NAME, Mode, Target, select_modes, sweep_restconf_encodings
from bench_runner.modes.clients import asyncssh_netconf, restconf_httpx
from bench_runner.modes.clients.native_interfaces import INTERFACES_PATH, NATIVE_PATH
from bench_runner.modes.registry import find
from bench_runner.plan import Plan, override, parse_plan
from bench_runner.protocols.netconf.messages import NATIVE_NS
from bench_runner.validation import IterationError

TARGET = Target(host="device", ssh_port=22, https_port=443, username="u", password="p")
COMMANDS = ["show version", "show clock", "show ip interface brief", "show inventory", "x", "y"]
READS = ("restconf/fresh-conn", "restconf/keep-alive")
INTERFACES_XML = (
    f'<interface xmlns="{NATIVE_NS}"><Loopback><name>0</name><description>Router ID'
    "</description></Loopback><GigabitEthernet><name>1</name></GigabitEthernet>"
    "<GigabitEthernet><name>2</name><description>LAN</description></GigabitEthernet></interface>"
)


def test_restconf_modes_shape_and_sweep() -> None:
    counts = {name: MODES_BY_NAME[name] for name in (*READS, "restconf/patch-batch")}
    assert [(m.min_round_trips(5), m.connections_per_iteration(5)) for m in counts.values()] == [
        (15, 5),
        (5, 0),
        (1, 0),
    ]
    assert counts["restconf/patch-batch"].commands_per_request(5) == 5
    assert counts["restconf/patch-batch"].parameters() is None
    selected = select_modes([*READS, "restconf/patch-batch"], ["floor", "requests"]).modes
    swept = sweep_restconf_encodings(selected, ["json", "xml"])
    assert [mode.label() for mode in swept] == [
        "restconf/fresh-conn httpx encoding=json",
        "restconf/fresh-conn httpx encoding=xml",
        "restconf/fresh-conn requests encoding=json",
        "restconf/fresh-conn requests encoding=xml",
        "restconf/keep-alive httpx encoding=json",
        "restconf/keep-alive httpx encoding=xml",
        "restconf/keep-alive requests encoding=json",
        "restconf/keep-alive requests encoding=xml",
        "restconf/patch-batch httpx",
        "restconf/patch-batch requests",
    ]
    assert {mode.port(TARGET) for mode in swept} == {443}


def test_plans_measure_json_unless_told() -> None:
    assert parse_plan("", "t").restconf_encodings() == ["json"]
    assert parse_plan("restconf_encoding: [xml, json, xml]\n", "t").restconf_encodings() == [
        "xml",
        "json",
    ]
    with pytest.raises(ValueError, match="restconf_encoding"):
        parse_plan("restconf_encoding: yaml\n", "t")


def test_the_encoding_option_sets_what_a_run_measures() -> None:
    overrides = plan_overrides(run, {"restconf_encoding": "xml", "modes": "restconf/keep-alive"})
    assert overrides == {"restconf_encoding": ["xml"], "modes": ["restconf/keep-alive"]}
    plan = override(Plan(), overrides)
    assert [mode.label() for mode in select(plan).modes] == [
        "restconf/keep-alive httpx encoding=xml"
    ]


def test_get_config_is_a_netconf_mode_of_both_clients() -> None:
    floor = MODES_BY_NAME["netconf/get-config"]
    assert (floor.client, floor.min_round_trips(5), floor.expected_round_trips(5)) == (
        "asyncssh",
        5,
        5,
    )
    assert floor.parameters() == {"framing": "1.1"}
    ncclient = find("netconf/get-config", "ncclient")
    assert ncclient is not None
    assert ncclient.expected_round_trips(5) == 5


class FakeDevice:
    """The device's RESTCONF as far as the modes use it, with a store of descriptions."""

    def __init__(self) -> None:
        self.descriptions: dict[str, str | None] = {
            "Loopback=0": "Router ID",
            "GigabitEthernet=1": None,
            "GigabitEthernet=2": "LAN",
        }
        self.requests: list[httpx.Request] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if request.method == "GET" and path == INTERFACES_PATH:
            return httpx.Response(200, text=INTERFACES_XML)
        if request.method == "GET" and path.startswith(INTERFACES_PATH + "/"):
            kind, _, name = path.rpartition("/")[2].partition("=")
            if request.headers["Accept"].endswith("+xml"):
                text = f'<{kind} xmlns="{NATIVE_NS}"><name>{name}</name></{kind}>'
            else:
                text = json.dumps({f"Cisco-IOS-XE-native:{kind}": [{"name": name}]})
            return httpx.Response(200, text=text)
        if request.method == "PATCH" and path == NATIVE_PATH:
            document = json.loads(request.content)
            if request.headers["Content-Type"] == "application/yang-patch+json":
                for edit in document["ietf-yang-patch:yang-patch"]["edit"]:
                    key = edit["target"].split("/")[2]
                    value = edit.get("value", {}).get("Cisco-IOS-XE-native:description")
                    self.descriptions[key] = value
                return httpx.Response(
                    200, text='{"ietf-yang-patch:yang-patch-status":{"ok":[null]}}'
                )
            for kind, entries in document["Cisco-IOS-XE-native:native"]["interface"].items():
                for entry in entries:
                    self.descriptions[f"{kind}={entry['name']}"] = entry["description"]
            return httpx.Response(204)
        return httpx.Response(405)


@pytest.fixture
def device(monkeypatch: pytest.MonkeyPatch) -> FakeDevice:
    fake = FakeDevice()

    def client(target: Target, *, keep_alive: bool) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url="https://device", transport=httpx.MockTransport(fake.handle)
        )

    monkeypatch.setattr(restconf_httpx, "new_client", client)
    return fake


async def _iterate(mode: Mode, iterations: int) -> list[list[str]]:
    async with mode.session(TARGET) as session:
        return [await session.run_iteration(COMMANDS) for _ in range(iterations)]


@pytest.mark.parametrize("encoding", ["json", "xml"])
def test_reads_get_the_interface_of_each_command(device: FakeDevice, encoding: Any) -> None:
    mode = MODES_BY_NAME["restconf/keep-alive"].with_restconf_encoding(encoding)
    [outputs] = asyncio.run(_iterate(mode, 1))
    assert len(outputs) == len(COMMANDS)
    reads = device.requests[1:]  # after the discovery
    assert [request.url.path.rpartition("/")[2] for request in reads] == [
        "Loopback=0",
        "GigabitEthernet=1",
        "GigabitEthernet=2",
        "Loopback=0",
        "GigabitEthernet=1",
        "GigabitEthernet=2",
    ]
    assert {request.headers["Accept"] for request in reads} == {f"application/yang-data+{encoding}"}


def test_patch_batch_writes_n_descriptions_in_one_request_and_restores(
    device: FakeDevice,
) -> None:
    mode = MODES_BY_NAME["restconf/patch-batch"]
    seen: list[dict[str, str | None]] = []

    async def run() -> None:
        async with mode.session(TARGET) as session:
            for _ in range(2):
                await session.run_iteration(COMMANDS[:3])
                seen.append(dict(device.descriptions))

    asyncio.run(run())
    patches = [r for r in device.requests if r.method == "PATCH"]
    assert len(patches) == 3  # one per iteration, then the restore
    written = [set(state.values()) for state in seen]
    assert all(len(values) == 3 for values in written)  # every interface got its own value
    assert written[0].isdisjoint(written[1])  # unique to the iteration
    assert device.descriptions == {
        "Loopback=0": "Router ID",
        "GigabitEthernet=1": None,
        "GigabitEthernet=2": "LAN",
    }


def test_a_refused_read_fails_the_iteration(device: FakeDevice) -> None:
    device.handle = lambda request: (  # type: ignore[method-assign]
        httpx.Response(200, text=INTERFACES_XML)
        if request.url.path == INTERFACES_PATH
        else httpx.Response(401, text="no")
    )
    with pytest.raises(IterationError, match="HTTP 401"):
        asyncio.run(_iterate(MODES_BY_NAME["restconf/fresh-conn"], 1))


class FakeNetconf:
    """A NETCONF channel answering <get-config>: the interfaces, then each filtered read."""

    def __init__(self) -> None:
        self.filters: list[str] = []

    async def call(self, build: Any, expect: bytes) -> str:
        rpc = build(len(self.filters) + 1).decode()
        subtree = rpc.partition('<filter type="subtree">')[2].partition("</filter>")[0]
        self.filters.append(subtree)
        inner = INTERFACES_XML if "<interface/>" in subtree else subtree
        return f'<rpc-reply message-id="{len(self.filters)}"><data>{inner}</data></rpc-reply>'

    def close(self) -> None:
        pass


def test_get_config_filters_to_the_interface_of_each_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    channel = FakeNetconf()

    class Connected:
        async def __aenter__(self) -> object:
            return object()

        async def __aexit__(self, *exc: object) -> None:
            return None

    async def open_channel(conn: object, framing: str) -> FakeNetconf:
        return channel

    monkeypatch.setattr(asyncssh_netconf, "traced_connect", lambda *args: Connected())
    monkeypatch.setattr(asyncssh_netconf.NetconfChannel, "open", open_channel)
    [outputs] = asyncio.run(_iterate(MODES_BY_NAME["netconf/get-config"], 1))
    assert len(outputs) == len(COMMANDS)
    assert channel.filters[0] == f'<native xmlns="{NATIVE_NS}"><interface/></native>'
    assert [
        f.partition("<interface><")[2].partition("</name>")[0] for f in channel.filters[1:]
    ] == [
        "Loopback><name>0",
        "GigabitEthernet><name>1",
        "GigabitEthernet><name>2",
    ] * 2
