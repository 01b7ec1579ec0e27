"""What the connections negotiated, as the report writes it: a few lines per mode (its
``handshakes`` in results.json) and, for the context table, each key exchange of the run
with the clients that negotiated it. Runs written before schema version 4 have none."""

from typing import Any

from bench_runner.influx_schema import Tag

Document = dict[str, Any]


def _values(parameters: Document, name: str) -> str:
    """A parameter's value, or its values with their connections when they differ."""
    values: dict[str, int] = (parameters.get(name) or {}).get("values") or {}
    if not values:
        return "—"
    if len(values) == 1:
        return next(iter(values))
    return " | ".join(f"{value} ({count})" for value, count in sorted(values.items()))


def mode_lines(handshakes: Document | None) -> list[str]:
    """The mode's negotiated parameters in a few lines; none for older results."""
    if not handshakes:
        return []
    if not handshakes.get("available"):
        return [f"not captured: {handshakes.get('reason') or 'unknown reason'}"]
    parameters: Document = handshakes.get("parameters") or {}
    lines = []
    if Tag.SSH_KEX in parameters:
        lines.append(
            f"kex {_values(parameters, Tag.SSH_KEX)}, "
            f"host key {_values(parameters, Tag.SSH_HOST_KEY)}"
        )
        sent = (_values(parameters, Tag.SSH_CIPHER_CS), _values(parameters, Tag.SSH_MAC_CS))
        received = (_values(parameters, Tag.SSH_CIPHER_SC), _values(parameters, Tag.SSH_MAC_SC))
        if sent == received:
            lines.append(f"cipher {sent[0]}, MAC {sent[1]}")
        else:
            lines.append(
                f"client→server {sent[0]}, MAC {sent[1]}; "
                f"server→client {received[0]}, MAC {received[1]}"
            )
    if Tag.TLS_VERSION in parameters:
        lines.append(
            f"{_values(parameters, Tag.TLS_VERSION)} {_values(parameters, Tag.TLS_CIPHER)}, "
            f"group {_values(parameters, Tag.TLS_GROUP)}"
        )
        lines.append(
            f"ALPN {_values(parameters, Tag.TLS_ALPN)}, "
            f"resumed {_values(parameters, Tag.TLS_RESUMED)}, "
            f"HelloRetryRequest {_values(parameters, Tag.TLS_HELLO_RETRY)}"
        )
    if Tag.TLS_EARLY_DATA in parameters:
        lines.append(f"early data (0-RTT) {_values(parameters, Tag.TLS_EARLY_DATA)}")
    incomplete: dict[str, int] = handshakes.get("incomplete") or {}
    if incomplete:
        lines.append(
            "not read whole: "
            + "; ".join(f"{reason} ({count})" for reason, count in incomplete.items())
        )
    return lines


def key_exchanges(modes: list[Document]) -> list[str]:
    """Each SSH key exchange and TLS group of the run with the clients that negotiated
    it, for the context table."""
    found: dict[str, dict[str, None]] = {}
    for mode in modes:
        parameters: Document = (mode.get("handshakes") or {}).get("parameters") or {}
        for name, label in ((Tag.SSH_KEX, "SSH"), (Tag.TLS_GROUP, "TLS")):
            for value in (parameters.get(name) or {}).get("values") or {}:
                found.setdefault(f"{label} {value}", {})[mode["client"]] = None
    return [f"{name} ({', '.join(clients)})" for name, clients in sorted(found.items())]
