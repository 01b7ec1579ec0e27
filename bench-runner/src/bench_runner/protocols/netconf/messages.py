"""The NETCONF messages the lab's clients send and the checks of what comes back (pure).

RFC 6241 and RFC 6242, as the lab uses them:

- hello (RFC 6241 section 8.1): the client offers ``:base:1.0`` and, unless the framing
  ``1.0`` is asked for, ``:base:1.1``; chunked framing is used after the hellos when both
  peers offer ``:base:1.1`` (RFC 6242 section 4.1), else end-of-message framing.
- RPCs (RFC 6241 section 4.1): ``<rpc message-id="N">`` in the base namespace; the lab sends
  a ``<get>`` whose subtree filter asks the lab device for a synthetic payload of a given size
  (namespace ``urn:transport-lab:payload``), a ``<get-config>`` of the running description of
  interface Loopback0 (Cisco-IOS-XE-native), an ``<edit-config>`` merging that description
  into the candidate (RFC 6241 section 7.2, ``remove`` when there was none), ``<commit>``
  (section 8.3) and ``<close-session>`` (section 7.8).
- replies (RFC 6241 section 4.2): an ``<rpc-reply>`` carries the message-id of its request;
  it fails with ``<rpc-error>`` (whose ``<error-message>`` says why, section 4.3), and
  succeeds with ``<data>`` (get, get-config) or ``<ok/>`` (edit-config, commit).

The message texts are the lab's exact bytes: the wire counts compare clients by them.
"""

import re
from typing import Literal
from xml.sax.saxutils import escape, unescape

from bench_runner.protocols.netconf.errors import NetconfError

BASE_NS = "urn:ietf:params:xml:ns:netconf:base:1.0"
BASE_10 = "urn:ietf:params:netconf:base:1.0"
BASE_11 = "urn:ietf:params:netconf:base:1.1"
PAYLOAD_NS = "urn:transport-lab:payload"
NATIVE_NS = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"
Framing = Literal["1.0", "1.1"]
"""The highest base version the client offers: ``1.1`` (chunked if the server agrees) or
``1.0`` (end-of-message framing whatever the server offers)."""
EDIT_INTERFACE = ("Loopback", "0")
"""The list entry ``netconf/edit-commit`` edits (its description), restored afterwards."""
REPLY_HEAD = 512
"""Bytes at the start of a reply in which its ``<rpc-reply ... message-id>`` must appear."""
_MESSAGE_ID = re.compile(rb'<rpc-reply[^>]*\smessage-id="([^"]*)"')
_ERROR_MESSAGE = re.compile(rb"<error-message[^>]*>(.*?)</error-message>", re.DOTALL)
_DESCRIPTION = re.compile(rb"<description>(.*?)</description>", re.DOTALL)


def client_hello(framing: Framing) -> bytes:
    """The client's ``<hello>``: ``:base:1.0``, and ``:base:1.1`` unless ``framing`` is 1.0."""
    bases = [BASE_10] if framing == "1.0" else [BASE_10, BASE_11]
    capabilities = "".join(f"<capability>{base}</capability>" for base in bases)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><hello xmlns="{BASE_NS}">'
        f"<capabilities>{capabilities}</capabilities></hello>"
    ).encode()


def negotiate_chunked(server_hello: bytes, framing: Framing) -> bool:
    """Whether the session continues in chunked framing: the client offered ``:base:1.1``
    (``framing`` 1.1) and so did the server. NetconfError when ``server_hello`` is no hello."""
    if b"<hello" not in server_hello:
        raise NetconfError(f"netconf: no server hello: {server_hello[:80]!r}")
    return framing == "1.1" and BASE_11.encode() in server_hello


def _rpc(message_id: int, operation: str) -> bytes:
    return f'<rpc message-id="{message_id}" xmlns="{BASE_NS}">{operation}</rpc>'.encode()


def payload_filter(reply_bytes: int) -> str:
    """Subtree filter asking the lab device for a ``<get>`` reply of ``reply_bytes``."""
    return f'<payload xmlns="{PAYLOAD_NS}"><size>{reply_bytes}</size></payload>'


def get_payload_rpc(message_id: int, reply_bytes: int) -> bytes:
    """``<get>`` of the synthetic payload of ``reply_bytes``."""
    return _rpc(
        message_id, f'<get><filter type="subtree">{payload_filter(reply_bytes)}</filter></get>'
    )


def _loopback(inner: str) -> str:
    kind, name = EDIT_INTERFACE
    return (
        f'<native xmlns="{NATIVE_NS}"><interface><{kind}><name>{name}</name>{inner}'
        f"</{kind}></interface></native>"
    )


DESCRIPTION_FILTER = _loopback("<description/>")
"""Subtree filter selecting the edited interface's description."""


def edit_text(edit: int) -> str:
    """The description the ``edit``-th edit of a session sets (always the same length, so
    every edit moves the same bytes)."""
    return f"bench-runner edit {edit:08d}"


def description_config(description: str | None) -> str:
    """The ``<config>`` setting the edited interface's description (``None`` removes it)."""
    leaf = (
        f'<description xmlns:nc="{BASE_NS}" nc:operation="remove"/>'
        if description is None
        else f"<description>{escape(description)}</description>"
    )
    return f'<config xmlns="{BASE_NS}">{_loopback(leaf)}</config>'


def original_description(get_config_reply: str) -> str | None:
    """The description in a ``<get-config>`` reply filtered with ``DESCRIPTION_FILTER``."""
    found = _DESCRIPTION.search(get_config_reply.encode())
    return unescape(found.group(1).decode()) if found else None


def get_description_rpc(message_id: int) -> bytes:
    """``<get-config>`` of the running description of the edited interface."""
    return _rpc(
        message_id,
        '<get-config><source><running/></source><filter type="subtree">'
        f"{DESCRIPTION_FILTER}</filter></get-config>",
    )


def edit_description_rpc(description: str | None, message_id: int) -> bytes:
    """``<edit-config>`` merging the edited interface's description into the candidate."""
    return _rpc(
        message_id,
        "<edit-config><target><candidate/></target><default-operation>merge"
        f"</default-operation>{description_config(description)}</edit-config>",
    )


def commit_rpc(message_id: int) -> bytes:
    """``<commit>`` of the candidate into the running configuration."""
    return _rpc(message_id, "<commit/>")


def close_session_rpc(message_id: int) -> bytes:
    """``<close-session>``: the server ends the session after its ``<ok/>``."""
    return _rpc(message_id, "<close-session/>")


def check_reply(reply: bytes, message_id: int, expect: bytes = b"<data") -> str:
    """The reply as text, or NetconfError naming what is wrong with it: no ``<rpc-reply>``
    with a message-id in its first ``REPLY_HEAD`` bytes, another message-id, an
    ``<rpc-error>`` (its error-message), or no ``expect`` (what a successful reply carries:
    ``<data`` for get and get-config, ``<ok`` for edit-config and commit)."""
    match = _MESSAGE_ID.search(reply[:REPLY_HEAD])
    if match is None:
        raise NetconfError(f"netconf: not an rpc-reply: {reply[:80]!r}")
    if match.group(1) != str(message_id).encode():
        raise NetconfError(
            f"netconf: reply to message-id {match.group(1)!r}, expected {message_id}"
        )
    if b"<rpc-error" in reply:
        error = _ERROR_MESSAGE.search(reply)
        detail = error.group(1).decode(errors="replace").strip() if error else "rpc-error"
        raise NetconfError(f"netconf: rpc-error: {detail}")
    if expect not in reply:
        raise NetconfError(f"netconf: rpc-reply without {expect.decode()}>")
    return reply.decode("utf-8", errors="replace")
