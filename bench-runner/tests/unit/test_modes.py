import ssl

import pytest

from bench_runner.modes import (
    ALL_MODES,
    DEFAULT_MODE_NAMES,
    FLEET_MODES,
    FLOOR_MODES,
    MODE_NAMES,
    MODES_BY_NAME,
    RELAYED_MODES,
    Transport,
    select_modes,
)
from bench_runner.modes.clients.device_api import check_restconf, exec_path
from bench_runner.tls import tls13_context
from bench_runner.validation import IterationError

EXPECTED_ALL = [
    "ssh/fresh-conn",
    "ssh/reuse-conn",
    "ssh/batch-exec",
    "ssh/pty-fresh",
    "ssh/pty-reuse",
    "https/fresh-conn",
    "https/keep-alive",
    "https/batch-post",
    "https/multi-cmd",
    "https/tls-resume",
    "https/restconf-get",
    "https/bulk",
    "netconf/fresh-session",
    "netconf/reuse-session",
    "netconf/batch-rpc",
    "netconf/edit-commit",
    "netconf/get-config",
    "tunnel/bulk",
    "tunnel/request",
    "h3/fresh-conn",
    "h3/keep-alive",
    "h3/batch-post",
    "h3/multi-cmd",
    "h3/resumed",
    "h3/0rtt",
    "gnmi/fresh-conn",
    "gnmi/reuse-conn",
    "gnmi/get-multi",
    "gnmi/set-batch",
    "gnmi/subscribe-once",
    "gnmi/subscribe-poll",
    "gnmi/stream",
    "restconf/fresh-conn",
    "restconf/keep-alive",
    "restconf/patch-batch",
]


def test_default_modes_are_six_floor_modes() -> None:
    default = select_modes(None).modes
    assert [m.name for m in default] == list(DEFAULT_MODE_NAMES)
    assert len(default) == 6
    assert {mode.client for mode in default} == {"asyncssh", "httpx"}


def test_every_mode_has_a_floor_client() -> None:
    assert list(MODE_NAMES) == EXPECTED_ALL
    assert [mode.name for mode in FLOOR_MODES] == EXPECTED_ALL
    assert all(mode.floor for mode in FLOOR_MODES)
    pairs = [(mode.name, mode.client) for mode in ALL_MODES]
    assert len(pairs) == len(set(pairs))


@pytest.mark.parametrize(
    ("name", "n_commands", "minimum", "expected"),
    [
        ("ssh/fresh-conn", 5, 20, 50),
        ("ssh/reuse-conn", 5, 10, 10),
        ("ssh/pty-fresh", 5, 11, 19),
        ("https/fresh-conn", 5, 15, 15),
        ("https/keep-alive", 5, 5, 5),
        ("https/batch-post", 5, 1, 1),
        ("ssh/pty-fresh", 1, 7, 15),
        ("ssh/batch-exec", 5, 2, 2),
        ("ssh/pty-reuse", 5, 9, 11),
        ("https/multi-cmd", 5, 1, 1),
        ("https/tls-resume", 5, 15, 20),
        ("netconf/fresh-session", 5, 9, 15),
        ("netconf/reuse-session", 5, 5, 5),
        ("netconf/batch-rpc", 5, 1, 1),
        ("https/restconf-get", 5, 5, 5),
        ("netconf/edit-commit", 5, 6, 6),
        ("tunnel/bulk", 5, 2, 2),
        ("https/bulk", 5, 1, 1),
        ("tunnel/request", 5, 5, 5),
        ("h3/fresh-conn", 5, 10, 10),
        ("h3/keep-alive", 5, 5, 5),
        ("h3/batch-post", 5, 1, 1),
        ("h3/multi-cmd", 5, 1, 1),
        ("h3/resumed", 5, 10, 10),
        ("h3/0rtt", 5, 5, 5),
    ],
)
def test_round_trip_bounds(name: str, n_commands: int, minimum: int, expected: int) -> None:
    mode = MODES_BY_NAME[name]
    assert mode.min_round_trips(n_commands) == minimum
    assert mode.expected_round_trips(n_commands) == expected
    assert mode.min_round_trips(n_commands) <= mode.expected_round_trips(n_commands)


def test_mode_identity() -> None:
    floor_clients = {
        Transport.SSH: {"asyncssh"},
        Transport.HTTPS: {"httpx", "python-ssl"},
        Transport.NETCONF: {"asyncssh"},
        Transport.TUNNEL: {"asyncssh"},
        Transport.H3: {"quic-go"},
        Transport.GNMI: {"grpc-go"},
        Transport.RESTCONF: {"httpx"},
        Transport.JUMP: {"asyncssh"},
        Transport.PROXY: {"httpx"},
        Transport.PROXY_H3: {"quic-go"},
    }
    for mode in ALL_MODES:
        assert mode.name.startswith(mode.transport.value + "/")
        assert (mode.client in floor_clients[mode.transport]) == mode.floor
        assert mode.description
        assert mode.client_version()
        # A library shares the mode's physical lower bound with the floor client.
        floor = MODES_BY_NAME[mode.name]
        assert mode.min_round_trips(5) == floor.min_round_trips(5)
        assert mode.min_round_trips(5) <= mode.expected_round_trips(5)


def test_select_modes_keeps_given_order_and_rejects_unknown() -> None:
    selection = select_modes(["https/keep-alive", "ssh/reuse-conn"])
    assert [m.name for m in selection.modes] == ["https/keep-alive", "ssh/reuse-conn"]
    assert selection.not_applicable == []
    assert len(select_modes(["all"]).modes) == len(FLOOR_MODES)
    with pytest.raises(KeyError, match="ssh/nope"):
        select_modes(["ssh/nope"])
    with pytest.raises(KeyError, match="telnetlib"):
        select_modes(None, ["telnetlib"])


def test_select_clients_reports_what_a_library_cannot_do() -> None:
    selection = select_modes(
        ["ssh/reuse-conn", "ssh/pty-fresh", "https/keep-alive"], ["floor", "netmiko", "paramiko"]
    )
    assert [(m.name, m.client) for m in selection.modes] == [
        ("ssh/reuse-conn", "asyncssh"),
        ("ssh/reuse-conn", "paramiko"),
        ("ssh/pty-fresh", "asyncssh"),
        ("ssh/pty-fresh", "netmiko"),
        ("https/keep-alive", "httpx"),
    ]
    # An SSH library is not "not applicable" to HTTPS modes: it is simply not an HTTPS client.
    assert [(e.mode, e.client) for e in selection.not_applicable] == [
        ("ssh/reuse-conn", "netmiko"),
        ("ssh/pty-fresh", "paramiko"),
    ]
    assert all(entry.reason.startswith(entry.client + ": ") for entry in selection.not_applicable)


def test_select_all_clients() -> None:
    selection = select_modes(["all"], ["all"])
    # The fleet and relayed modes are selected by name only (they need a fleet, or a job of
    # their own under two profiles): not in "all".
    assert len(selection.modes) == len(ALL_MODES) - len(FLEET_MODES) - len(RELAYED_MODES)
    assert not any(mode.relayed for mode in selection.modes)
    not_applicable = {(entry.mode, entry.client) for entry in selection.not_applicable}
    assert ("https/tls-resume", "requests") in not_applicable


def test_exec_path_one_segment_per_command() -> None:
    assert exec_path(["show version"]) == "/admin/exec/show+version"
    assert exec_path(["show ip interface brief", "show running-config"]) == (
        "/admin/exec/show+ip+interface+brief/show+running-config"
    )
    # A slash inside a command must not split it into two segments.
    assert exec_path(["show a/b"]) == "/admin/exec/show+a%2Fb"


def test_tls_context_pins_tls13() -> None:
    context = tls13_context()
    assert context.minimum_version is ssl.TLSVersion.TLSv1_3
    assert context.verify_mode is ssl.CERT_NONE


def test_restconf_reply_check() -> None:
    body = '{"Cisco-IOS-XE-native:native": {"hostname": "lab-r1"}}'
    assert check_restconf(200, body) == body
    for status, bad, reason in [
        (401, "Unauthorized", "HTTP 401: Unauthorized"),
        (200, "<native/>", "not JSON"),
        (200, '{"errors": {}}', "no Cisco-IOS-XE-native:native"),
    ]:
        with pytest.raises(IterationError, match=reason):
            check_restconf(status, bad)
    assert select_modes(["https/restconf-get"], ["all"]).modes[1].client == "requests"
