"""Where a relayed iteration's time goes, hop by hop (pure; docs/relays.md).

The runner's capture sees the WAN hop only. Its time split (wire/timeline.py) gives the WAN's
network, the client, TCP stalls and recovery, and calls everything behind its socket to the
relay ``device``: the relay, the LAN and the device. Here that part (``beyond_wan``) is cut
further, from what was measured and nothing else:

- **LAN network**: the LAN's round trips (the head-end's count on its SSH connection; through
  the jump host, the runner's on the device's session inside the jump host's channel) times
  the LAN RTT the runner verified, clipped to the time it is cut from. Null where either is
  missing (the OpenSSH client's jump modes count no LAN round trip): never guessed.
- **Through the head-end**, the relay times its own LAN work (its SSH connect and the
  commands: the phases ``lan_connect`` and ``lan_commands``), clipped to ``beyond_wan``, for
  its clock is not the one that stamped the packets. The device's part is that LAN time less
  the LAN network; the relay's is the rest of ``beyond_wan``: the head-end's own time by its
  clock (the phase ``headend``) and what it does outside that clock (TLS handshakes, reading
  the request, writing the answer), with any delay the WAN engine added beyond the verified
  RTT, which the time split puts behind the socket too.
- **Through the jump host**, the relay reports nothing: it forwards the device's SSH inside its
  own channel, and a capture on the WAN alone cannot tell its work (its own login, the
  forwarding) from the device's. The two stay one part, ``relay_and_device``, ``relay`` and
  ``device`` null. Telling them apart takes a capture inside the jump host's network
  namespace that pairs each segment in from the WAN with the one it becomes on the LAN,
  across two layers of encryption, and takes the WAN engine's share of the delay out of its
  stamps (docs/relays.md): a capture of its own, not built.

The LAN's own TCP stalls and losses are not seen: they stay in ``device`` (or
``relay_and_device``). The hop parts cut ``beyond_wan`` and nothing else, so with the time
split's other parts they never add up to more than the iteration's wall time.
"""

from pydantic import BaseModel

from bench_runner.influx_schema import hop_field, hop_p50_field
from bench_runner.stats import percentile
from bench_runner.wire.timeline import TimeSplit

HEADEND_LAN_PHASES = ("lan_connect", "lan_commands")
"""The head-end's LAN work as it timed it (phases.py)."""


class HopSplit(BaseModel):
    """One relayed iteration's wall time by hop (``modes[].hop_split.per_iteration``)."""

    wan_network_ms: float
    """The time split's ``network``: one WAN RTT per wait."""
    lan_network_ms: float | None
    """LAN round trips times the verified LAN RTT; null where either is unknown."""
    relay_ms: float | None
    """The head-end's time (``beyond_wan`` less its LAN work); null through the jump host."""
    device_ms: float | None
    """The head-end's LAN work less the LAN network; null through the jump host."""
    relay_and_device_ms: float | None
    """``beyond_wan`` less the LAN network (``relay`` + ``device`` where they are told
    apart); null where the LAN network is unknown."""
    beyond_wan_ms: float
    """The time split's ``device``: everything behind the runner's socket to the relay."""
    client_ms: float
    stall_ms: float
    recovery_ms: float
    clipped_ms: float
    """What clipping took off the measured inputs: the relay's LAN work beyond the time the
    capture put behind the WAN, and LAN round trips times the RTT beyond what they are cut
    from; 0 where the measurements agree."""


def relay_lan_ms(phases: dict[str, float] | None) -> float | None:
    """The relay's LAN work in an iteration as it timed it (the head-end's); None when it
    reported none (the jump host)."""
    if phases is None or not any(name in phases for name in HEADEND_LAN_PHASES):
        return None
    return sum(phases.get(name, 0.0) for name in HEADEND_LAN_PHASES)


def split_hops(
    split: TimeSplit,
    lan_round_trips: int | None,
    lan_rtt_ms: float | None,
    relay_lan: float | None,
) -> HopSplit:
    """``split``'s part behind the WAN cut into the LAN network, the relay and the device:
    ``relay_lan`` is the relay's LAN work by its own clock (None: the relay reports none)."""
    beyond = max(split.device_ms, 0.0)
    clipped = 0.0
    # Each part is clipped to the one that holds it: the relay's clock is not the capture's,
    # and a verified RTT is not every round trip's.
    lan_work = None
    if relay_lan is not None:
        lan_work = min(max(relay_lan, 0.0), beyond)
        clipped += max(relay_lan, 0.0) - lan_work
    lan_network = None
    if lan_round_trips is not None and lan_rtt_ms is not None:
        counted = max(lan_round_trips * lan_rtt_ms, 0.0)
        lan_network = min(counted, beyond if lan_work is None else lan_work)
        clipped += counted - lan_network
    relay = device = None
    if lan_work is not None:
        relay = beyond - lan_work
        device = None if lan_network is None else lan_work - lan_network
    return HopSplit(
        wan_network_ms=split.network_ms,
        lan_network_ms=lan_network,
        relay_ms=relay,
        device_ms=device,
        relay_and_device_ms=None if lan_network is None else beyond - lan_network,
        beyond_wan_ms=beyond,
        client_ms=split.client_ms,
        stall_ms=split.stall_ms,
        recovery_ms=split.recovery_ms,
        clipped_ms=clipped,
    )


HOP_PARTS: tuple[str, ...] = (
    "wan_network",
    "lan_network",
    "relay",
    "device",
    "relay_and_device",
    "beyond_wan",
    "client",
    "stall",
    "recovery",
)


class HopSplits(BaseModel):
    """A relayed mode's time by hop (``modes[].hop_split`` in results.json)."""

    lan_rtt_ms: float | None
    """The verified LAN RTT the LAN network is counted with; null where it was not verified."""
    per_iteration: list[HopSplit]
    """One per successful measured iteration with a time split, in run order."""
    p50_ms: dict[str, float | None]
    """The median of each part in ``HOP_PARTS`` over the iterations that have it; null where
    none has."""
    max_clipped_ms: float
    """The largest ``clipped_ms`` of any iteration."""


def summarize_hops(lan_rtt_ms: float | None, per_iteration: list[HopSplit]) -> HopSplits | None:
    if not per_iteration:
        return None
    p50_ms: dict[str, float | None] = {}
    for part in HOP_PARTS:
        values = [
            value for split in per_iteration if (value := getattr(split, f"{part}_ms")) is not None
        ]
        p50_ms[part] = percentile(values, 0.5) if values else None
    return HopSplits(
        lan_rtt_ms=lan_rtt_ms,
        per_iteration=per_iteration,
        p50_ms=p50_ms,
        max_clipped_ms=max(split.clipped_ms for split in per_iteration),
    )


ITERATION_COLUMNS: tuple[str, ...] = tuple(hop_field(part) for part in HOP_PARTS)
"""Per-iteration CSV columns and InfluxDB ``iteration`` fields."""
SUMMARY_COLUMNS: tuple[str, ...] = tuple(hop_p50_field(part) for part in HOP_PARTS)
"""Per-mode CSV columns and InfluxDB ``mode_summary`` fields."""


def iteration_fields(split: HopSplit | None) -> dict[str, float | None]:
    return {
        column: None if split is None else getattr(split, f"{part}_ms")
        for column, part in zip(ITERATION_COLUMNS, HOP_PARTS, strict=True)
    }


def summary_fields(splits: HopSplits | None) -> dict[str, float | None]:
    return {
        column: None if splits is None else splits.p50_ms.get(part)
        for column, part in zip(SUMMARY_COLUMNS, HOP_PARTS, strict=True)
    }
