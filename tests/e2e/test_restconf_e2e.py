"""RESTCONF in full and NETCONF on the same paths, against the lab's device: every RESTCONF
mode (reads in JSON and in XML) and `netconf/get-config`, with the floor clients and the
libraries that have them, at `local` and `regional` against their round-trip models; the
batch PATCH really writing n descriptions (read back over NETCONF) and the mode restoring
them; YANG Patch all or nothing; JSON and XML answering with the same leaves of one store."""

import asyncio
import json
import os
import statistics
import xml.etree.ElementTree as ET
from functools import partial
from typing import Any

import httpx
import pytest

from bench_runner.modes import MODES_BY_NAME, Target
from bench_runner.modes.clients.asyncssh_connect import traced_connect
from bench_runner.modes.clients.asyncssh_netconf import NetconfChannel
from bench_runner.modes.clients.native_interfaces import (
    INTERFACES_FILTER,
    INTERFACES_PATH,
    NATIVE_PATH,
    Interface,
    get_config_rpc,
    interfaces_from_xml,
)
from bench_runner.protocols.netconf.messages import NATIVE_NS
from bench_runner.roundtrips import SocketTrace
from conftest import BenchRun, sweep

REGIONAL_RTT_MS = 30.0
MODES = (
    "restconf/fresh-conn",
    "restconf/keep-alive",
    "restconf/patch-batch",
    "netconf/get-config",
)
ITERATIONS = 5
SEED_INTERFACES = [
    "Loopback0",
    "GigabitEthernet1",
    "GigabitEthernet2",
    "GigabitEthernet3",
    "VirtualPortGroup0",
]
TARGET = Target(
    host=os.environ.get("DEVICE_HOST", "device"),
    ssh_port=22,
    https_port=443,
    username=os.environ["DEVICE_USERNAME"],
    password=os.environ["DEVICE_PASSWORD"],
)
HTTPS = f"https://{TARGET.host}:{TARGET.https_port}"
YANG_DATA = {"json": "application/yang-data+json", "xml": "application/yang-data+xml"}
RESTCONF_ERRORS = "{urn:ietf:params:xml:ns:yang:ietf-restconf}errors"


def _restconf() -> httpx.Client:
    return httpx.Client(base_url=HTTPS, auth=(TARGET.username, TARGET.password), verify=False)


@pytest.fixture(scope="module")
def restconf_sweep() -> dict[str, BenchRun]:
    """Every mode above with every client that has it, NETCONF in both framings, RESTCONF
    reads in both encodings, at local and regional."""
    return sweep(
        ("local", "regional"),
        "--modes",
        ",".join(MODES),
        "--clients",
        "floor,requests,ncclient",
        "--netconf-framing",
        "1.0,1.1",
        "--restconf-encoding",
        "json,xml",
        "--iterations",
        str(ITERATIONS),
        "--warmup",
        "1",
        name="e2e-restconf",
    )


@pytest.fixture(params=["local", "regional"])
def each_profile(request: pytest.FixtureRequest, restconf_sweep: dict[str, BenchRun]) -> BenchRun:
    return restconf_sweep[request.param]


def _measured(run: BenchRun) -> list[dict[str, Any]]:
    return [m for m in run.results["modes"] if m["mode"] in MODES]


def _variant(mode: dict[str, Any]) -> tuple[str, str, str]:
    parameters = mode.get("parameters") or {}
    return mode["mode"], mode["client"], str(parameters.get("encoding", parameters.get("framing")))


def test_every_mode_runs_with_every_client_and_parameter(each_profile: BenchRun) -> None:
    modes = _measured(each_profile)
    reads = {
        (name, client, encoding)
        for name in ("restconf/fresh-conn", "restconf/keep-alive")
        for client in ("httpx", "requests")
        for encoding in ("json", "xml")
    }
    patches = {("restconf/patch-batch", client, "None") for client in ("httpx", "requests")}
    get_configs = {
        ("netconf/get-config", client, framing)
        for client in ("asyncssh", "ncclient")
        for framing in ("1.0", "1.1")
    }
    assert {_variant(m) for m in modes} == reads | patches | get_configs
    for mode in modes:
        assert mode["ok"], (mode["series"], mode["error_messages"])
        assert mode["stats"]["n"] == ITERATIONS, mode["series"]
        transport = "netconf" if mode["mode"] == "netconf/get-config" else "restconf"
        assert mode["transport"] == transport, mode["series"]
        assert mode["client_version"] not in ("", "unknown"), mode["series"]


def test_round_trips_on_the_wire_follow_the_model_at_regional(
    restconf_sweep: dict[str, BenchRun],
) -> None:
    """Counted on the wire, where CPU load cannot add a round trip (a late answer is still
    one answer): a new connection per GET 3 per command, a kept one 1 per request, the batch
    PATCH 1 per iteration."""
    for mode in _measured(restconf_sweep["regional"]):
        counted = [it["round_trips"] for it in mode["wire"]["per_iteration"]]
        assert statistics.median(counted) == mode["expected_round_trips"], (mode["series"], counted)


def test_p50_is_at_least_its_round_trips_at_regional(restconf_sweep: dict[str, BenchRun]) -> None:
    """Physics: no iteration beats its protocol's round trips times the verified RTT."""
    for mode in _measured(restconf_sweep["regional"]):
        assert mode["verified_rtt_ms"] >= 0.9 * REGIONAL_RTT_MS, mode["rtt_check"]
        floor_ms = mode["min_round_trips"] * mode["verified_rtt_ms"]
        assert mode["stats"]["p50_ms"] >= floor_ms, (mode["series"], mode["stats"], floor_ms)


def test_shapes_are_recorded(restconf_sweep: dict[str, BenchRun]) -> None:
    run = restconf_sweep["local"]
    commands = len(run.results["modes"][0]["commands"])
    shapes = {
        (m["mode"], m["connections_per_iteration"], m["commands_per_request"])
        for m in _measured(run)
    }
    assert shapes == {
        ("restconf/fresh-conn", commands, 1),
        ("restconf/keep-alive", 0, 1),
        ("restconf/patch-batch", 0, commands),
        ("netconf/get-config", 0, 1),
    }


async def _netconf_descriptions() -> dict[Interface, str | None]:
    """Every interface's description, read over NETCONF (the same store)."""
    async with traced_connect(TARGET, SocketTrace(), TARGET.netconf_port) as conn:
        channel = await NetconfChannel.open(conn, "1.1")
        try:
            reply = await channel.call(partial(get_config_rpc, INTERFACES_FILTER), b"<data")
        finally:
            channel.close()
    return interfaces_from_xml(reply)


def test_patch_batch_writes_n_descriptions_and_restores_them() -> None:
    """One iteration of the floor client's batch PATCH: n descriptions changed at once,
    visible over NETCONF, each unique to its command; the originals back after the mode."""
    commands = ["show version", "show clock", "show inventory"]
    before = asyncio.run(_netconf_descriptions())
    assert [i.label for i in before] == SEED_INTERFACES

    async def one_iteration() -> tuple[list[str], dict[Interface, str | None]]:
        async with MODES_BY_NAME["restconf/patch-batch"].session(TARGET) as session:
            outputs = await session.run_iteration(commands)
            return outputs, await _netconf_descriptions()

    outputs, during = asyncio.run(one_iteration())
    assert outputs == ["HTTP 204: 3 descriptions written"]
    written = list(during.items())[: len(commands)]
    values = [description for _, description in written]
    assert len(set(values)) == len(commands), values
    for command, value in enumerate(values, start=1):
        assert value is not None
        assert value.startswith("bench ")
        assert value.endswith(f" 1.{command}")
    assert list(during.items())[len(commands) :] == list(before.items())[len(commands) :]
    assert asyncio.run(_netconf_descriptions()) == before


def test_json_and_xml_answer_the_same_leaves_as_netconf() -> None:
    netconf = asyncio.run(_netconf_descriptions())
    with httpx.Client(
        base_url=HTTPS, auth=(TARGET.username, TARGET.password), verify=False
    ) as http:
        for interface, description in netconf.items():
            path = interface.restconf_path()
            as_json = http.get(path, headers={"Accept": YANG_DATA["json"]})
            as_xml = http.get(path, headers={"Accept": YANG_DATA["xml"]})
            assert as_json.headers["Content-Type"] == YANG_DATA["json"]
            assert as_xml.headers["Content-Type"] == YANG_DATA["xml"]
            [entry] = as_json.json()[f"Cisco-IOS-XE-native:{interface.kind}"]
            root = ET.fromstring(as_xml.text)
            assert root.tag == f"{{{NATIVE_NS}}}{interface.kind}"
            assert entry["name"] == root.findtext(f"{{{NATIVE_NS}}}name") == interface.name
            assert entry.get("description") == description
            assert root.findtext(f"{{{NATIVE_NS}}}description") == description
        missing = http.get(f"{INTERFACES_PATH}/Loopback=4242", headers={"Accept": YANG_DATA["xml"]})
        assert missing.status_code == 404
        assert (
            ET.fromstring(missing.text).tag == "{urn:ietf:params:xml:ns:yang:ietf-restconf}errors"
        )


def test_a_yang_patch_is_all_or_nothing_on_the_device() -> None:
    """A YANG Patch whose second edit fails (create of an existing interface) changes
    nothing, its first edit included, and names the failing edit; a valid one applies."""
    before = asyncio.run(_netconf_descriptions())
    first = next(iter(before))
    target = f"/interface/{first.kind}={first.name}"
    failing = {
        "ietf-yang-patch:yang-patch": {
            "patch-id": "e2e-atomic",
            "edit": [
                {
                    "edit-id": "change",
                    "operation": "merge",
                    "target": f"{target}/description",
                    "value": {"Cisco-IOS-XE-native:description": "must not stay"},
                },
                {
                    "edit-id": "clash",
                    "operation": "create",
                    "target": target,
                    "value": {f"Cisco-IOS-XE-native:{first.kind}": [{"name": first.name}]},
                },
            ],
        }
    }
    with httpx.Client(
        base_url=HTTPS, auth=(TARGET.username, TARGET.password), verify=False
    ) as http:
        response = http.patch(
            NATIVE_PATH,
            content=json.dumps(failing),
            headers={"Content-Type": "application/yang-patch+json"},
        )
        assert response.status_code == 409, response.text
        status = response.json()["ietf-yang-patch:yang-patch-status"]
        [edit] = status["edit-status"]["edit"]
        assert edit["edit-id"] == "clash"
        assert edit["errors"]["error"][0]["error-tag"] == "data-exists"
        assert asyncio.run(_netconf_descriptions()) == before
