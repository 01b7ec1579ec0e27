"""What the packet capture records: per iteration, and per mode in results.json."""

from pydantic import BaseModel

from bench_runner.influx_schema import wire_field, wire_p50_field
from bench_runner.stats import percentile

METHOD = "af-packet"


class WireIteration(BaseModel):
    """One iteration's TCP (or QUIC's UDP) traffic between the runner and the target, on the
    mode's ports.

    ``packets_*`` are what the packet socket saw: received packets after GRO, sent ones
    before GSO/TSO segmentation, so one bulk "packet" can be many segments on the wire;
    ``segments_*`` are the TCP segments on the wire, each aggregate counted as its payload
    over its segment size (from the kernel's virtio-net header); null when the kernel
    does not provide that header. ``bytes_*`` are TCP payload bytes (TLS and SSH framing
    included, TCP/IP headers not), UDP payload bytes for QUIC; ``ip_bytes_*`` add one IP +
    TCP (UDP) header per segment (datagram).
    """

    round_trips: int
    connects: int
    packets_out: int
    packets_in: int
    segments_out: int | None
    segments_in: int | None
    bytes_out: int
    bytes_in: int
    ip_bytes_out: int | None
    ip_bytes_in: int | None

    @property
    def packets(self) -> int:
        return self.packets_out + self.packets_in

    @property
    def bytes(self) -> int:
        return self.bytes_out + self.bytes_in


FIELDS: tuple[str, ...] = tuple(WireIteration.model_fields)


class WireCounts(BaseModel):
    """A mode's wire counts (``modes[].wire`` in results.json)."""

    method: str = METHOD
    available: bool
    reason: str | None = None
    """Why nothing was counted (``available`` false), or what limits the counts."""
    interface: str | None = None
    filter: str | None = None
    per_iteration: list[WireIteration] = []
    p50: dict[str, float | None] | None = None
    capture_drops: int | None = None
    """Packets the kernel matched but could not hand to the capture (ring full): when
    non-zero, the counts of the iterations they fell in are low."""


def summarize_wire(per_iteration: list[WireIteration]) -> dict[str, float | None] | None:
    """p50 of every field over the iterations (null where a field was never known)."""
    if not per_iteration:
        return None
    summary: dict[str, float | None] = {}
    for field in FIELDS:
        values = [getattr(item, field) for item in per_iteration]
        known = [float(value) for value in values if value is not None]
        summary[field] = percentile(known, 0.5) if len(known) == len(values) else None
    return summary


ITERATION_COLUMNS: tuple[str, ...] = tuple(wire_field(field) for field in FIELDS)
"""Per-iteration CSV columns and InfluxDB ``iteration`` fields."""
SUMMARY_COLUMNS: tuple[str, ...] = tuple(wire_p50_field(field) for field in FIELDS)
"""Per-mode CSV columns and InfluxDB ``mode_summary`` fields."""


def iteration_fields(item: WireIteration | None) -> dict[str, int | None]:
    """``wire_<field>`` of one iteration; every value None without counts."""
    return {
        column: getattr(item, field) if item is not None else None
        for column, field in zip(ITERATION_COLUMNS, FIELDS, strict=True)
    }


def summary_fields(counts: WireCounts | None) -> dict[str, float | None]:
    """``wire_<field>_p50`` of a mode; every value None without counts."""
    p50 = (counts.p50 if counts is not None else None) or {}
    return {column: p50.get(field) for column, field in zip(SUMMARY_COLUMNS, FIELDS, strict=True)}
