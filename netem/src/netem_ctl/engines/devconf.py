"""Set an interface's IPv4 settings (the /proc/sys/net/ipv4/conf/IFACE/* values) over rtnetlink.

Containers get /proc/sys read-only even with NET_ADMIN, but the kernel also takes these values in
an RTM_SETLINK message (IFLA_AF_SPEC -> AF_INET -> IFLA_INET_CONF), which NET_ADMIN allows.
iproute2 has no command for it, hence this module; run it as
  python3 -m netem_ctl.engines.devconf IFACE name=value...
(or run this file directly) so it works through the same command runner, and in the same network
namespace, as `ip` and `iptables`.
"""

import os
import socket
import struct
import sys

# include/uapi/linux/ip.h: IPV4_DEVCONF_*
SETTINGS = {"forwarding": 1, "rp_filter": 8, "accept_local": 23}

RTM_SETLINK = 19
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLMSG_ERROR = 2
IFLA_AF_SPEC = 26
IFLA_INET_CONF = 1
NLA_F_NESTED = 0x8000


def _attribute(kind: int, payload: bytes) -> bytes:
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def setlink_message(ifindex: int, values: dict[str, int], sequence: int = 1) -> bytes:
    """The RTM_SETLINK request that sets `values` (names from SETTINGS) on interface `ifindex`."""
    settings = b"".join(
        _attribute(SETTINGS[name], struct.pack("=I", value)) for name, value in values.items()
    )
    inet = _attribute(
        socket.AF_INET | NLA_F_NESTED, _attribute(IFLA_INET_CONF | NLA_F_NESTED, settings)
    )
    body = struct.pack("=BxHiII", socket.AF_UNSPEC, 0, ifindex, 0, 0) + _attribute(
        IFLA_AF_SPEC | NLA_F_NESTED, inet
    )
    return (
        struct.pack("=IHHII", 16 + len(body), RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, sequence, 0)
        + body
    )


def set_devconf(interface: str, values: dict[str, int]) -> None:
    unknown = set(values) - set(SETTINGS)
    if unknown:
        raise ValueError(f"unknown IPv4 settings: {', '.join(sorted(unknown))}")
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as sock:
        sock.sendto(setlink_message(socket.if_nametoindex(interface), values), (0, 0))
        reply = sock.recv(65536)
    kind = struct.unpack_from("=H", reply, 4)[0]
    code = struct.unpack_from("=i", reply, 16)[0] if kind == NLMSG_ERROR else 0
    if code:
        raise OSError(-code, f"setting {values} on {interface}: {os.strerror(-code)}")


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not all("=" in item for item in argv[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    values = {name: int(value) for name, value in (item.split("=", 1) for item in argv[1:])}
    try:
        set_devconf(argv[0], values)
    except (OSError, ValueError) as exc:
        print(f"devconf {argv[0]}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
