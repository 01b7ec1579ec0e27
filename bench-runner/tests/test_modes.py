import ssl

import pytest

from bench_runner.modes import ALL_MODES, MODES_BY_NAME, Transport, select_modes
from bench_runner.modes.https import exec_path, tls13_context

EXPECTED_NAMES = [
    "ssh/fresh-conn", "ssh/reuse-conn", "ssh/pty-fresh",
    "https/fresh-conn", "https/keep-alive", "https/batch-post",
]


def test_all_modes_in_run_order() -> None:
    assert [mode.name for mode in ALL_MODES] == EXPECTED_NAMES


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
    ],
)
def test_round_trip_bounds(name: str, n_commands: int, minimum: int, expected: int) -> None:
    mode = MODES_BY_NAME[name]
    assert mode.min_round_trips(n_commands) == minimum
    assert mode.expected_round_trips(n_commands) == expected
    assert mode.min_round_trips(n_commands) <= mode.expected_round_trips(n_commands)


def test_mode_identity() -> None:
    for mode in ALL_MODES:
        assert mode.name.startswith(mode.transport.value + "/")
        assert mode.client == ("asyncssh" if mode.transport is Transport.SSH else "httpx")
        assert mode.description
        assert "round trip" in (mode.__doc__ or "")


def test_select_modes_keeps_given_order_and_rejects_unknown() -> None:
    assert [m.name for m in select_modes(["https/keep-alive", "ssh/reuse-conn"])] == [
        "https/keep-alive", "ssh/reuse-conn"
    ]
    assert len(select_modes(None)) == len(ALL_MODES)
    with pytest.raises(KeyError, match="ssh/nope"):
        select_modes(["ssh/nope"])


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
