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
    data_segments_out: int | None = None
    """Wire segments carrying sequence space (data, SYN, FIN): the ones whose loss TCP must
    repair. This and the counters below (``recovery``) are null in results older than
    them, and for QUIC unless its client counts them: QUIC's packet numbers are encrypted,
    so a QUIC client library's own counts stand in (quic-go's; for QUIC each is noted
    below)."""
    data_segments_in: int | None = None
    """QUIC: ack-eliciting packets, each way."""
    retransmits_out: int | None = None
    """Segments the runner sent again (SYN retries included). QUIC: the client's packets it
    declared lost (their frames go out again in new packets)."""
    retransmits_in: int | None = None
    """Device segments that came again, or late to fill a hole (SYN-ACKs again included);
    reordered originals are not. QUIC: the server's packet numbers missing on arrival and
    not filled late: a lost packet, or a number the server skipped on purpose (quic-go
    skips one among its first 3 to 514 packets, then ever more rarely)."""
    timeouts: int | None = None
    """Retransmissions, either way, that waited at least the 200 ms minimum timeout. QUIC:
    the client's probe timeouts."""
    syn_retries: int | None = None
    """SYNs and SYN-ACKs sent again (counted in ``retransmits_*`` too). QUIC: the client's
    Initial packets declared lost."""
    spurious: int | None = None
    """D-SACKs seen either way: retransmissions of what the receiver already had. QUIC: the
    client's losses found spurious."""
    reordered_in: int | None = None
    """Device segments that arrived after later ones, not sent again."""

    @property
    def packets(self) -> int:
        return self.packets_out + self.packets_in

    @property
    def bytes(self) -> int:
        return self.bytes_out + self.bytes_in

    @property
    def recovered(self) -> bool | None:
        """Whether a segment was sent again in the iteration, or a timer fired to repair a
        loss (a QUIC probe timeout may precede the loss it repairs being declared); None:
        not counted."""
        if self.retransmits_out is None or self.retransmits_in is None:
            return None
        return self.retransmits_out + self.retransmits_in + (self.timeouts or 0) > 0


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
    recovered_iterations: int | None = None
    """Iterations in which a segment was sent again; null where the capture cannot tell."""


def recovered_iterations(per_iteration: list[WireIteration]) -> int | None:
    """How many iterations saw a retransmission; None unless every one could be told."""
    recovered = [item.recovered for item in per_iteration]
    if not recovered or None in recovered:
        return None
    return sum(1 for flag in recovered if flag)


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
