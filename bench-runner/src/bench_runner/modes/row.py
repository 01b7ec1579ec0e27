"""The catalog's vocabulary: a mode's definition (what any client of it must do), a row (one
client doing it) and the plugins a row names. Pure: a plugin's module is imported only when
the plugin is called, so reading the catalog imports no client library."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from importlib import import_module
from typing import Any, Literal

from bench_runner.modes.base import PerIteration, Transport
from bench_runner.payloads import BulkSize
from bench_runner.protocols.netconf.messages import Framing


@dataclass(frozen=True)
class Plugin:
    """``module:function`` with keyword options, loaded by name when called (as scrapli
    loads a transport plugin only when a driver chooses it)."""

    path: str
    options: tuple[tuple[str, Any], ...] = ()

    def load(self) -> Callable[..., Any]:
        module, _, name = self.path.partition(":")
        function: Callable[..., Any] = getattr(import_module(module), name)
        return function

    def __call__(self, *args: Any) -> Any:
        return self.load()(*args, **dict(self.options))


def plugin(path: str, **options: Any) -> Plugin:
    """A plugin in ``bench_runner.modes.clients``: ``plugin("httpx_api:per_command")``."""
    return Plugin(f"bench_runner.modes.clients.{path}", tuple(sorted(options.items())))


class Parameters(StrEnum):
    """What a mode is swept over beyond the commands."""

    NETCONF = "netconf"
    """framing x reply size"""
    NETCONF_FRAMING = "netconf-framing"
    """the framing only (the replies are ``<ok/>``)"""
    BULK = "bulk"
    """the download's size"""
    FLEET = "fleet"
    """devices x whole runs"""
    RESTCONF_ENCODING = "restconf-encoding"
    """the encoding of RESTCONF's replies: JSON or XML"""


@dataclass(frozen=True)
class NetconfValues:
    framing: Framing = "1.1"
    reply_bytes: int = 1024


@dataclass(frozen=True)
class BulkValues:
    size: BulkSize = "10M"


@dataclass(frozen=True)
class FleetValues:
    hosts: int = 1
    repeats: int = 1

    def __post_init__(self) -> None:
        if self.hosts < 1 or self.repeats < 1:
            raise ValueError("hosts and repeats are at least 1")


RestconfEncoding = Literal["json", "xml"]
"""``application/yang-data+json`` (RFC 7951) or ``application/yang-data+xml``."""


@dataclass(frozen=True)
class RestconfValues:
    encoding: RestconfEncoding = "json"


Values = NetconfValues | BulkValues | FleetValues | RestconfValues

_LOWER_BOUND = re.compile(r"Lower bound: ([0-9n +]+?) round trips?")
_EXPECTED = re.compile(r"Expected: ([0-9n +]+?) round trips?")


def stated_count(pattern: re.Pattern[str], text: str, what: str) -> PerIteration:
    """The one count ``text`` states; ValueError when it states none or several."""
    found = pattern.findall(text)
    if len(found) != 1:
        raise ValueError(f"{what} must be stated once, found {len(found)}: {text[:80]!r}")
    return PerIteration.parse(found[0])


@dataclass(frozen=True)
class ModeDefinition:
    """What one iteration of the mode does, whatever the client: the physical lower bound
    on its round trips with the argument for it (stated as ``Lower bound: <count> round
    trips``), and its shape for like-for-like comparisons across transports."""

    name: str
    """``<transport>/<mode>``"""
    summary: str
    lower_bound: PerIteration
    argument: str
    connections: PerIteration
    """New connections (TCP, and the session on it) opened per iteration."""
    commands_per_request: PerIteration | None
    """Commands one request carries (an exec, a GET, an RPC); None when the iteration
    sends no command (a download)."""
    parameters: Parameters | None = None

    @property
    def transport(self) -> Transport:
        return Transport(self.name.split("/", 1)[0])

    def stated_lower_bound(self) -> PerIteration:
        return stated_count(_LOWER_BOUND, self.argument, f"{self.name}: the lower bound")


@dataclass(frozen=True)
class Row:
    """One (mode, client): the client's own description, the round trips it is expected to
    pay with the evidence (stated as ``Expected: <count> round trips``), and the plugin that
    opens its session: ``session(mode, target)``, an async context manager."""

    mode: ModeDefinition
    client: str
    """The library (its distribution name unless ``version`` says otherwise)."""
    description: str
    expected: PerIteration
    evidence: str
    session: Plugin
    floor: bool = False
    """A floor client (minimal overhead: asyncssh, httpx, the ssl module); False for the
    libraries people use."""
    version: Plugin | None = None
    """``version()`` -> str; None: the installed version of the distribution ``client``."""
    hosts_at_once: bool = False
    """Fleet modes: every device at once (one host's round trips per run on the path)."""
    wire_hosts: Plugin | None = None
    """``wire_hosts(mode, target)`` -> the hosts the capture watches; None: the target."""

    @property
    def name(self) -> str:
        return self.mode.name

    def stated_expected(self) -> PerIteration:
        return stated_count(_EXPECTED, self.evidence, f"{self.name} {self.client}: expected")
