"""The model-driven reads and writes of the RESTCONF and NETCONF modes (pure), on the paths
the gNMI modes use: the device's interfaces in the order its running configuration lists
them, discovered once per mode; command i reads the configuration of interface
((i - 1) mod k) + 1 and writes that interface's description, in the native model
(Cisco-IOS-XE-native) as RESTCONF resources and NETCONF subtree filters, as IOS-XE serves it.

Discovery reads the interface container as XML (RESTCONF ``Accept: yang-data+xml``, or a
NETCONF ``<get-config>``): XML keeps the entries in document order, where RFC 7951 JSON
groups them by type."""

import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote
from xml.sax.saxutils import escape

from bench_runner.modes.row import RestconfEncoding
from bench_runner.protocols.netconf.messages import BASE_NS, NATIVE_NS
from bench_runner.validation import IterationError, first_line

NATIVE_MODULE = "Cisco-IOS-XE-native"
NATIVE_PATH = f"/restconf/data/{NATIVE_MODULE}:native"
INTERFACES_PATH = f"{NATIVE_PATH}/interface"
MEDIA: dict[RestconfEncoding, str] = {
    "json": "application/yang-data+json",
    "xml": "application/yang-data+xml",
}
YANG_PATCH_JSON = "application/yang-patch+json"
HTTP_OK = 200
HTTP_NO_CONTENT = 204
INTERFACES_FILTER = f'<native xmlns="{NATIVE_NS}"><interface/></native>'
"""Subtree filter selecting every interface's configuration."""


@dataclass(frozen=True)
class Interface:
    """A list entry of the native ``interface`` container: ``GigabitEthernet`` ``1``."""

    kind: str
    name: str

    @property
    def label(self) -> str:
        """The name ``show running-config`` prints: ``GigabitEthernet1``."""
        return f"{self.kind}{self.name}"

    def restconf_path(self) -> str:
        """Its RESTCONF resource (the key percent-encoded: ``0/1`` is ``0%2F1``)."""
        return f"{INTERFACES_PATH}/{self.kind}={quote(self.name, safe='')}"

    def subtree_filter(self) -> str:
        """The NETCONF subtree filter selecting its configuration."""
        return (
            f'<native xmlns="{NATIVE_NS}"><interface><{self.kind}><name>{escape(self.name)}'
            f"</name></{self.kind}></interface></native>"
        )


def _native(tag: str) -> str:
    return f"{{{NATIVE_NS}}}{tag}"


def interfaces_from_xml(document: str) -> dict[Interface, str | None]:
    """Every interface of the first native ``<interface>`` element in ``document`` (a
    RESTCONF reply or a NETCONF ``<rpc-reply>``), in document order, with its description
    (None without one); IterationError when it holds none."""
    try:
        root = ET.fromstring(document)
    except ET.ParseError as exc:
        raise IterationError(f"interfaces: not XML: {exc}") from exc
    container = (
        root if root.tag == _native("interface") else root.find(f".//{_native('interface')}")
    )
    found: dict[Interface, str | None] = {}
    for entry in container if container is not None else ():
        kind = entry.tag.partition("}")[2]
        name = entry.findtext(_native("name"))
        if kind and name is not None:
            found[Interface(kind, name.strip())] = entry.findtext(_native("description"))
    if not found:
        raise IterationError(f"interfaces: none in {first_line(document)[:80]!r}")
    return found


def interface_for(interfaces: Sequence[Interface], command: int) -> Interface:
    """The interface command ``command`` (1..n) reads or writes."""
    return interfaces[(command - 1) % len(interfaces)]


def description_value(token: str, iteration: int, command: int) -> str:
    """The description write ``command`` of ``iteration`` sets: unique to both within the
    session whose random ``token`` it carries."""
    return f"bench {token} {iteration}.{command}"


def check_read(interface: Interface, encoding: RestconfEncoding, status: int, body: str) -> str:
    """The body of a RESTCONF GET of ``interface``, or IterationError: HTTP 200 and the
    interface's list entry in ``encoding``."""
    what = f"restconf {interface.label}"
    if status != HTTP_OK:
        raise IterationError(f"{what}: HTTP {status}: {first_line(body)[:120]}")
    if encoding == "xml":
        try:
            root = ET.fromstring(body)
        except ET.ParseError as exc:
            raise IterationError(f"{what}: not XML: {exc}") from exc
        ok = (
            root.tag == _native(interface.kind) and root.findtext(_native("name")) == interface.name
        )
    else:
        try:
            document = json.loads(body)
        except ValueError as exc:
            raise IterationError(f"{what}: not JSON: {exc}") from exc
        entries = (
            document.get(f"{NATIVE_MODULE}:{interface.kind}")
            if isinstance(document, dict)
            else None
        )
        ok = isinstance(entries, list) and any(
            isinstance(entry, dict) and entry.get("name") == interface.name for entry in entries
        )
    if not ok:
        raise IterationError(f"{what}: not its {encoding} configuration: {body[:80]!r}")
    return body


def patch_body(writes: Sequence[tuple[Interface, str]]) -> str:
    """One plain PATCH (merge) of the native tree setting every description of ``writes``,
    in order (a later write of the same interface wins, as it would one request later)."""
    by_kind: dict[str, list[dict[str, str]]] = {}
    for interface, description in writes:
        by_kind.setdefault(interface.kind, []).append(
            {"name": interface.name, "description": description}
        )
    return json.dumps({f"{NATIVE_MODULE}:native": {"interface": by_kind}})


def check_write(status: int, body: str, writes: int) -> str:
    """What a write iteration returns for validation, or IterationError: HTTP 204."""
    if status != HTTP_NO_CONTENT:
        raise IterationError(f"restconf PATCH: HTTP {status}: {first_line(body)[:120]}")
    return f"HTTP {status}: {writes} descriptions written"


def restore_patch(originals: Mapping[Interface, str | None]) -> str:
    """A YANG Patch (RFC 8072) of the native tree putting every description back: a merge
    where there was one, a remove where there was none; applied all or none."""
    edits = []
    for number, (interface, description) in enumerate(originals.items(), start=1):
        target = f"/interface/{interface.kind}={quote(interface.name, safe='')}/description"
        edit: dict[str, object] = {"edit-id": str(number), "target": target}
        if description is None:
            edit["operation"] = "remove"
        else:
            edit["operation"] = "merge"
            edit["value"] = {f"{NATIVE_MODULE}:description": description}
        edits.append(edit)
    patch = {"patch-id": "bench-runner restore", "edit": edits}
    return json.dumps({"ietf-yang-patch:yang-patch": patch})


def check_restored(status: int, body: str) -> None:
    """IterationError unless a YANG Patch answered HTTP 200 with ``ok``."""
    if status != HTTP_OK or '"ok"' not in body:
        raise IterationError(f"restconf restore: HTTP {status}: {first_line(body)[:120]}")


def get_config_rpc(subtree: str, message_id: int) -> bytes:
    """NETCONF ``<get-config>`` of running with a subtree filter."""
    return (
        f'<rpc message-id="{message_id}" xmlns="{BASE_NS}"><get-config><source><running/>'
        f'</source><filter type="subtree">{subtree}</filter></get-config></rpc>'
    ).encode()


def check_get_config(interface: Interface, reply: str) -> str:
    """A ``<get-config>`` reply of ``interface``, or IterationError when it lacks it."""
    if f"<name>{escape(interface.name)}</name>" not in reply or f"<{interface.kind}" not in reply:
        raise IterationError(f"netconf {interface.label}: not in the reply: {reply[:120]!r}")
    return reply
