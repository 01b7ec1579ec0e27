"""The model-driven reads and writes of the gNMI modes, as path strings for the Python clients
(pygnmi, gnmi_cli); the Go client builds the same paths (goclient/gnmi). Pure.

The device's interfaces are discovered once per mode, in the order it lists them; command i
(1-based) of an iteration reads or writes interface ((i-1) mod k)+1: the configuration
``/interfaces/interface[name=X]/config``, or its description."""

import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

INTERFACES = "/interfaces"
_INTERFACE_LEAF = re.compile(r"interface\[name=([^\]]+)\](?:/config/([A-Za-z0-9_-]+))?$")


@dataclass(frozen=True)
class Interface:
    """One of the device's interfaces and the description it had when the mode started
    (None: it had none)."""

    name: str
    description: str | None = None


def config_path(name: str) -> str:
    return f"/interfaces/interface[name={name}]/config"


def description_path(name: str) -> str:
    return f"{config_path(name)}/description"


def counters_path(name: str) -> str:
    return f"/interfaces/interface[name={name}]/state/counters"


def pick(interfaces: Sequence[Interface], index: int) -> Interface:
    """The interface of command ``index`` (0-based)."""
    return interfaces[index % len(interfaces)]


def session_id() -> str:
    """Tells one session's writes from any other's."""
    return secrets.token_hex(4)


def description(session: str, iteration: int, index: int) -> str:
    """What command ``index`` (0-based) of ``iteration`` writes."""
    return f"bench {session} {iteration}.{index + 1}"


def interfaces_from_leaves(leaves: Iterable[tuple[str, Any]]) -> list[Interface]:
    """The interfaces that (path, value) leaves of /interfaces name, in order of first
    appearance, each with its description leaf where there is one; ValueError for none."""
    names: list[str] = []
    descriptions: dict[str, str] = {}
    for path, value in leaves:
        match = _INTERFACE_LEAF.search(path)
        if match is None:
            continue
        name, leaf = match.groups()
        if name not in names:
            names.append(name)
        if leaf == "description":
            descriptions[name] = str(value)
    if not names:
        raise ValueError("the device lists no interface under /interfaces")
    return [Interface(name, descriptions.get(name)) for name in names]


def notification_leaves(response: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(path, value) of every update of a Get response as pygnmi returns it (its prefix, if
    any, joined before each path)."""
    leaves = []
    for notification in response.get("notification") or []:
        prefix = (notification.get("prefix") or "").strip("/")
        for update in notification.get("update") or []:
            path = (update.get("path") or "").strip("/")
            leaves.append(("/".join(part for part in (prefix, path) if part), update.get("val")))
    return leaves
