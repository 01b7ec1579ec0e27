import socket
import struct
import sys

import pytest

from netem_ctl.engines import detour, devconf
from netem_ctl.engines.devconf import SETTINGS, set_devconf, setlink_message

from .shell import command, commands

DETOUR_RULE = "fwmark 0x4e51 iif lo lookup 4951 priority 4951"


def test_link_and_route_commands():
    assert detour.link_commands() == commands(
        "ip link add tl-detour0 type veth peer name tl-detour1",
        "ip link set tl-detour0 up",
        "ip link set tl-detour1 up",
    )
    assert detour.install_commands("02:00:00:00:00:01") == [
        [
            sys.executable,
            devconf.__file__,
            *command("tl-detour1 forwarding=1 accept_local=1 rp_filter=0"),
        ],
        *commands(
            "ip neigh replace 198.19.255.254 lladdr 02:00:00:00:00:01 dev tl-detour0 nud permanent",
            "ip route replace default via 198.19.255.254 dev tl-detour0 onlink table 4951",
            f"ip rule add {DETOUR_RULE}",
        ),
    ]


def test_remove_commands_undo_everything():
    assert detour.remove_commands() == commands(
        f"ip rule del {DETOUR_RULE}",
        "ip route flush table 4951",
        "ip link del tl-detour0",
    )


def _attributes(data: bytes) -> list[tuple[int, bytes]]:
    found = []
    while data:
        length, kind = struct.unpack_from("=HH", data)
        found.append((kind & 0x7FFF, data[4:length]))
        data = data[(length + 3) & ~3 :]
    return found


def test_setlink_message_nests_inet_conf_under_af_spec():
    message = setlink_message(7, {"forwarding": 1, "accept_local": 1, "rp_filter": 0}, sequence=9)
    length, kind, flags, sequence, _ = struct.unpack_from("=IHHII", message)
    assert (length, kind, flags, sequence) == (len(message), 19, 0x5, 9)
    family, index = struct.unpack_from("=Bxxxi", message, 16)
    assert (family, index) == (socket.AF_UNSPEC, 7)
    [(af_spec, inet)] = _attributes(message[32:])
    [(family_attr, conf)] = _attributes(inet)
    [(inet_conf, settings)] = _attributes(conf)
    assert (af_spec, family_attr, inet_conf) == (26, socket.AF_INET, 1)
    assert {kind: struct.unpack("=I", value)[0] for kind, value in _attributes(settings)} == {
        SETTINGS["forwarding"]: 1,
        SETTINGS["accept_local"]: 1,
        SETTINGS["rp_filter"]: 0,
    }


def test_unknown_setting_is_refused_before_any_netlink():
    with pytest.raises(ValueError, match="unknown IPv4 settings: bogus"):
        set_devconf("lo", {"bogus": 1})


class _Kernel:
    """Canned `ip`/`cat` output, as from a namespace where the detour is fully installed."""

    def __init__(self, **overrides: str):
        self.files = {
            "/proc/sys/net/ipv4/conf/tl-detour1/forwarding": "1\n",
            "/proc/sys/net/ipv4/conf/tl-detour1/accept_local": "1\n",
            "/proc/sys/net/ipv4/conf/tl-detour1/rp_filter": "0\n",
            "/proc/sys/net/ipv4/conf/all/rp_filter": "0\n",
            **overrides,
        }

    def output(self, argv: list[str]) -> str:
        if argv[0] == "cat":
            return self.files.get(argv[1], "")
        if argv[:2] == ["ip", "-br"]:
            return f"{argv[-1]}@peer UP\n"
        if argv[:2] == ["ip", "rule"]:
            return "4951:\tfrom all fwmark 0x4e51 iif lo lookup 4951\n"
        return "default via 198.19.255.254 dev tl-detour0 onlink\n"


def test_healthy_detour_has_no_problems():
    assert detour.Detour(_Kernel()).problems() == []  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["1", "2"], ids=["strict", "loose"])
def test_reverse_path_filter_is_reported(mode):
    kernel = _Kernel(**{"/proc/sys/net/ipv4/conf/all/rp_filter": f"{mode}\n"})
    [problem] = detour.Detour(kernel).problems()  # type: ignore[arg-type]
    assert f"all.rp_filter={mode}" in problem


def test_missing_accept_local_is_reported():
    kernel = _Kernel(**{"/proc/sys/net/ipv4/conf/tl-detour1/accept_local": "0\n"})
    assert detour.Detour(kernel).problems() == [  # type: ignore[arg-type]
        "detour: net.ipv4.conf.tl-detour1.accept_local is 0, needs 1"
    ]
