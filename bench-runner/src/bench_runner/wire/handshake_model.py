"""What a mode's connections negotiated (``modes[].handshakes`` in results.json), and its
forms as ``modes.csv`` columns and InfluxDB tags.

Every parameter is counted over the connections whose handshake was read whole: each value
with the connections that negotiated it. A mode whose connections negotiated different
values of a parameter lists it in ``varied``, and its tag and column carry every value.
"""

from collections import Counter

from pydantic import BaseModel

from bench_runner.influx_schema import (
    HANDSHAKE_TAGS,
    HANDSHAKE_VALUE_SEPARATOR,
    QUIC_HANDSHAKE_TAGS,
    SSH_HANDSHAKE_TAGS,
    TLS_HANDSHAKE_TAGS,
    Tag,
)
from bench_runner.wire.handshakes import CLIENT_ID, QUIC, SERVER_ID, TLS, Negotiation

METHOD = "af-packet"
WIRE, LIBRARY = "wire", "library"
NOT_OFFERED = "not offered"
"""The ClientHello offered no ALPN protocol (read on the wire)."""
NONE_SELECTED = "none selected"
"""The client offered ALPN; its library reports that the server selected none."""
PARAMETERS = (*SSH_HANDSHAKE_TAGS, CLIENT_ID, SERVER_ID, *TLS_HANDSHAKE_TAGS, *QUIC_HANDSHAKE_TAGS)
"""Every parameter ``Handshakes.parameters`` may hold, in this order."""
COUNT_COLUMNS = ("handshakes", "handshakes_incomplete", "handshakes_varied")


def not_exposed(client: str) -> str:
    return f"not exposed by {client}"


class Negotiated(BaseModel):
    """One parameter over a mode's connections."""

    values: dict[str, int]
    """Each value negotiated -> the connections that negotiated it."""
    source: str
    """``wire`` (read from the captured handshake) or ``library`` (reported by the client
    library: the ALPN protocol of TLS 1.3, which travels encrypted)."""


class Handshakes(BaseModel):
    """The handshakes of a mode's connections (``modes[].handshakes``)."""

    method: str = METHOD
    available: bool
    reason: str | None = None
    """Why nothing was read (``available`` false)."""
    connections: int = 0
    """Connections whose handshake was read whole, from the session's opening to its close
    (setup, warm-up and measured iterations)."""
    incomplete: dict[str, int] = {}
    """Connections whose handshake the capture did not hold whole, by reason; they are in
    no parameter."""
    parameters: dict[str, Negotiated] = {}
    varied: list[str] = []
    """Parameters whose connections negotiated different values."""
    capture_drops: int | None = None
    """Handshake packets the kernel matched but could not place (ring full)."""

    def value(self, parameter: str) -> str | None:
        """The parameter as one text: its value, or its values sorted and joined by
        ``HANDSHAKE_VALUE_SEPARATOR``; None when no connection negotiated it."""
        negotiated = self.parameters.get(parameter)
        if negotiated is None or not negotiated.values:
            return None
        return HANDSHAKE_VALUE_SEPARATOR.join(sorted(negotiated.values))


def unavailable(reason: str | None) -> Handshakes:
    return Handshakes(available=False, reason=reason)


def _alpn(tls: list[Negotiation], selected: Counter[str | None] | None, client: str) -> Negotiated:
    """The ALPN protocol of the TLS connections: ``not offered`` for those whose
    ClientHello offered none, else what the library reports, else, for a QUIC connection
    whose ClientHello offered one protocol, that one (QUIC cannot complete a handshake
    without agreeing on one: RFC 9001 section 8.1), else that the library reports
    nothing."""
    not_offered = sum(1 for item in tls if item.alpn_offered == ())
    offered = len(tls) - not_offered
    values: Counter[str] = Counter()
    source = WIRE
    if offered and selected:
        source = LIBRARY
        for protocol, count in selected.items():
            if protocol is not None:
                values[protocol] += count
        # The library's "none" also counts the connections that offered nothing.
        values[NONE_SELECTED] += max(selected[None] - not_offered, 0)
    elif offered:
        for item in tls:
            if item.protocol == QUIC and item.alpn_offered and len(item.alpn_offered) == 1:
                values[item.alpn_offered[0]] += 1
            elif item.alpn_offered != ():
                values[not_exposed(client)] += 1
    values[NOT_OFFERED] += not_offered
    return Negotiated(values={key: count for key, count in values.items() if count}, source=source)


def summarize_handshakes(
    negotiations: list[Negotiation],
    alpn: Counter[str | None] | None,
    client: str,
    drops: int,
) -> Handshakes:
    """The mode's handshakes from each connection's negotiation and, for TLS, the ALPN
    protocols its library reported (None: it reports none)."""
    whole = [item for item in negotiations if item.problem is None]
    incomplete = Counter(item.problem for item in negotiations if item.problem is not None)
    counted: dict[str, Counter[str]] = {}
    for item in whole:
        for parameter, value in item.values.items():
            counted.setdefault(parameter, Counter())[value] += 1
    parameters = {
        name: Negotiated(values=dict(counted[name]), source=WIRE)
        for name in PARAMETERS
        if name in counted
    }
    tls = [item for item in whole if item.protocol in (TLS, QUIC)]
    if tls:
        parameters[Tag.TLS_ALPN] = _alpn(tls, alpn, client)
        parameters = {name: parameters[name] for name in PARAMETERS if name in parameters}
    return Handshakes(
        available=True,
        connections=len(whole),
        incomplete={str(reason): count for reason, count in incomplete.items()},
        parameters=parameters,
        varied=[name for name, item in parameters.items() if len(item.values) > 1],
        capture_drops=drops,
    )


def handshake_tags(handshakes: Handshakes | None) -> dict[str, str]:
    """``HANDSHAKE_TAGS`` of a ``mode_summary`` point: those the mode negotiated."""
    if handshakes is None:
        return {}
    found = {tag: handshakes.value(tag) for tag in HANDSHAKE_TAGS}
    return {tag: value for tag, value in found.items() if value is not None}


COLUMNS: tuple[str, ...] = (*PARAMETERS, *COUNT_COLUMNS)
"""``modes.csv`` columns: every parameter (empty where not negotiated), then the
connections read whole, those not, and the parameters that varied."""


def csv_fields(handshakes: Handshakes | None) -> dict[str, str | int | None]:
    if handshakes is None or not handshakes.available:
        return dict.fromkeys(COLUMNS)
    return {
        **{name: handshakes.value(name) for name in PARAMETERS},
        "handshakes": handshakes.connections,
        "handshakes_incomplete": sum(handshakes.incomplete.values()),
        "handshakes_varied": " ".join(handshakes.varied),
    }
