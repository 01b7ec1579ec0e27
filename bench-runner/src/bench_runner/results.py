"""The results document (schema_version 6, documented field by field in SCHEMA.md) and
the measured iterations behind it (iterations.csv and InfluxDB's ``iteration`` points)."""

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, computed_field

from bench_runner.hop_split import HopSplit, HopSplits
from bench_runner.loss_model import LossModel
from bench_runner.phases import PhaseSummary
from bench_runner.precision import Precision
from bench_runner.resources import ResourceUsage
from bench_runner.result_file import write_result_file
from bench_runner.roundtrips import RoundTrips
from bench_runner.rtt_model import RttModel, predict
from bench_runner.rtt_probe import RttCheck, RttProbe
from bench_runner.stats import Stats, ratio_interval
from bench_runner.verdicts.model import Verdict
from bench_runner.wire.handshake_model import Handshakes
from bench_runner.wire.model import WireCounts, WireIteration
from bench_runner.wire.timeline import TimeSplit, TimeSplits

SCHEMA_VERSION = 7


class LabInfo(BaseModel):
    commit: str | None
    images: str | None


class RunnerInfo(BaseModel):
    version: str
    python: str
    openssl: str | None = None
    """The OpenSSL of the runner's Python ssl module (its TLS clients); None before it was
    recorded."""
    openssh: str | None = None
    """The OpenSSH client's ``ssh -V``; None before it was recorded."""


class TargetInfo(BaseModel):
    host: str
    ssh_port: int
    https_port: int
    netconf_port: int | None = None
    h3_port: int | None = None
    """UDP; None before HTTP/3 was measured."""
    gnmi_port: int | None = None
    """None before gNMI was measured."""
    name: str | None = None
    platform: str | None = None


class ProfileInfo(BaseModel):
    name: str
    rtt_ms: float
    jitter_ms: float
    keep_order: bool = False
    """With jitter: packets kept in order (False: they may overtake); False in older results."""
    loss_pct: float
    rate_mbit: float
    source: str | None
    engine: str
    engine_reason: str | None
    applied_at: str | None
    readback: dict[str, Any] | None


class LanRtt(BaseModel):
    """A relayed mode's LAN hop (relay to device): its profile's RTT and the RTT verified on
    the device's SSH port, which only the device's netem delays: the runner's path to it and
    the relay's cross that one impairment alike."""

    profile: str
    configured_rtt_ms: float
    verified_rtt_ms: float | None
    rtt_probe: RttProbe | None
    rtt_check: RttCheck | None


class RelayInfo(BaseModel):
    """A relayed job's remote site: the WAN hop is ``profile`` (netem-wan, in front of the
    jump host and the head-end), the LAN hop ``lan_profile`` (the device's own netem)."""

    jump_host: str
    jump_port: int
    headend: str
    headend_https_port: int
    headend_h3_port: int
    """UDP."""
    lan_profile: ProfileInfo


class StreamSummary(BaseModel):
    """What one STREAM SAMPLE subscription delivered to the client over a fixed window, after
    the mode's iterations (gnmi/stream): its updates per second, the window and the
    subscription's sample interval and path."""

    updates_per_second: float
    updates: int
    window_s: float
    sample_interval_ms: float
    path: str


class ModeResult(BaseModel):
    mode: str
    transport: str
    client: str
    client_version: str
    description: str
    iterations: int
    warmup: int
    commands: list[str]
    configured_rtt_ms: float
    verified_rtt_ms: float | None
    rtt_probe: RttProbe | None
    min_round_trips: int
    expected_round_trips: int
    ok: bool
    stats: Stats
    samples_ms: list[float]
    error_messages: list[str]
    rtt_check: RttCheck | None = None
    connections_per_iteration: int | None = None
    """New connections one iteration opens (0: the mode keeps its connection), from the
    catalog; None before it was recorded."""
    commands_per_request: int | None = None
    """Commands one request carries (None: the mode sends no commands, a download); None
    too before it was recorded."""
    published: bool = True
    """False when the verified-RTT gate failed: results.json keeps the mode, sinks do not."""
    speedup_vs_baseline: float | None = None
    speedup_vs_baseline_ci: tuple[float, float] | None = None
    """The speedup's 95 % interval (``stats.ratio_interval``); null with too few samples."""
    resources: ResourceUsage | None = None
    round_trips: RoundTrips | None = None
    """Round trips counted on the client's socket, per successful measured iteration
    (asyncssh modes); null where the client's socket cannot be traced."""
    parameters: dict[str, str | int] | None = None
    """Mode settings beyond the commands (NETCONF: framing, reply_bytes; tunnel/bulk:
    bulk_size)."""
    transfer_bytes: int | None = None
    """Payload bytes one iteration moves (tunnel/bulk); null for the other modes."""
    throughput_mb_s: float | None = None
    """``transfer_bytes`` / p50 wall time, in MB/s (10^6 bytes); null without samples."""
    wire: WireCounts | None = None
    """Packets, bytes and round trips counted on the wire (every client); null when the
    mode was not measured."""
    phases: PhaseSummary | None = None
    """Per-iteration phases and their p50, for clients that expose them; else null."""
    time_split: TimeSplits | None = None
    """Each successful iteration's wall time split into network, device, client and TCP
    stalls, from the captured packets; null without a capture."""
    started_at: datetime | None = None
    """Start of the mode (its RTT probe); null in results written before it was recorded."""
    finished_at: datetime | None = None
    """End of its last iteration and of the session's close."""
    p50_vs_floor: float | None = None
    """p50 over the p50 of the same mode and parameters measured with the floor client in
    the same run (1.0 for the floor client itself): what the library costs; null when the
    run has no floor measurement of it."""
    p50_vs_floor_ci: tuple[float, float] | None = None
    """``p50_vs_floor``'s 95 % interval; null with too few samples on either side."""
    rtt_model: RttModel | None = None
    """p50 predicted from the same measurement at ``local`` in the same sweep plus the
    round trips times the added RTT; null without a ``local`` reference or samples."""
    verdict: Verdict | None = None
    """Tonight against the earlier nights of the same series (verdicts/); null when the
    mode was not published or has no samples."""
    stream: StreamSummary | None = None
    """A streaming mode's update rate (gnmi/stream), measured once after its iterations, whose
    values are update delays; null for the other modes and when it was not measured."""
    handshakes: Handshakes | None = None
    """What the mode's connections negotiated (SSH algorithms, TLS version, cipher, group,
    ALPN, resumption), from the wire and, for ALPN, the client library; null when the mode
    was not measured (and in results written before schema version 4)."""
    precision: Precision | None = None
    """How the iterations were counted (adaptive or fixed), why they stopped and the
    median's precision reached; null in results written before schema version 5."""
    loss_model: LossModel | None = None
    """What the profile's loss should cost the mode, from its counted packets
    (loss_model.py); null without loss or without the counts."""
    lan_rtt: LanRtt | None = None
    """A relayed mode's LAN hop, verified as its WAN hop is; null for the other modes (and
    for a relayed mode whose LAN the lab does not set)."""
    lan_round_trips: RoundTrips | None = None
    """Round trips on the LAN hop per successful iteration, as the head-end counted them on
    its SSH connection (proxy modes); null where the relay reports none."""
    hop_split: HopSplits | None = None
    """A relayed mode's time split by hop (hop_split.py); null for the other modes, without a
    capture, and in results written before it."""

    def parameter_tags(self) -> dict[str, str]:
        """``parameters`` as text, for InfluxDB tags and Prometheus labels: the series of
        one mode and client measured with several settings in a run do not collide."""
        return {key: str(value) for key, value in (self.parameters or {}).items()}

    @computed_field  # type: ignore[prop-decorator]
    @property
    def series(self) -> str:
        """One measured series, named for legends: mode, client with its version, and
        the parameters, e.g. ``netconf/batch-rpc · ncclient 0.6.19 · framing=1.1
        reply_bytes=1024``. Two results of a run never share it, and the same series in
        another run (another profile, another night) has the same name."""
        version = self.client_version.split(",")[0].strip()
        name = f"{self.mode} · {self.client} {version}".rstrip()
        settings = " ".join(f"{key}={value}" for key, value in self.parameter_tags().items())
        return f"{name} · {settings}" if settings else name


@dataclass(frozen=True)
class IterationRecord:
    """One measured iteration, as written to iterations.csv and InfluxDB."""

    iteration: int
    started_at: datetime
    wall_ms: float
    error: str | None
    round_trips: int | None = None
    """Counted on the client's socket (modes that trace it), else None."""
    wire: WireIteration | None = None
    """Packets, bytes and round trips counted on the wire; None without a capture."""
    phases: dict[str, float] | None = None
    """Phase -> ms, for clients that expose their phases, else None."""
    time_split: TimeSplit | None = None
    """Where the wall time went, from the captured packets; None without a capture."""
    excluded: str | None = None
    """Why a successful iteration is left out of every figure (the profile it claims may
    not have been in effect); None for a valid sample."""
    lan_round_trips: int | None = None
    """Round trips on the LAN hop, as the head-end counted them (proxy modes), else None."""
    hop_split: HopSplit | None = None
    """A relayed iteration's time by hop, from its time split; None for the others."""

    @property
    def ok(self) -> bool:
        """A valid sample: it succeeded and was not excluded."""
        return self.error is None and self.excluded is None


@dataclass(frozen=True)
class ModeRun:
    """A mode's result with the iterations it summarizes."""

    result: ModeResult
    records: list[IterationRecord]


class BaselineInfo(BaseModel):
    mode: str
    client: str
    p50_ms: float | None


class NotApplicable(BaseModel):
    """A mode a requested client cannot do: reported, never measured as zero."""

    mode: str
    client: str
    reason: str


class RunResult(BaseModel):
    schema_version: int = SCHEMA_VERSION
    """The runner writes ``SCHEMA_VERSION``; earlier nights read back keep theirs."""
    run_id: str
    sweep: str | None = None
    """The ``--run-id`` of the command that ran this job: every profile (or target) of one
    ``bench-runner run`` shares it; equal to ``run_id`` for a single job."""
    started_at: datetime
    finished_at: datetime
    lab: LabInfo
    runner: RunnerInfo
    device: dict[str, Any]
    target: TargetInfo
    profile: ProfileInfo
    modes: list[ModeResult]
    ok: bool
    baseline: BaselineInfo | None = None
    not_applicable: list[NotApplicable] = []
    plan: str | None = None
    relay: RelayInfo | None = None
    """Set for a job of relayed modes (jump host, head-end): ``profile`` is then the WAN
    hop's; null for direct jobs."""


def apply_baseline(modes: list[ModeResult], baseline_mode: str) -> BaselineInfo | None:
    """Set every mode's ``speedup_vs_baseline`` (baseline p50 / mode p50, so 3.0 means three
    times faster than the baseline). ``baseline_mode`` is ``mode`` or ``mode@client``; the
    first matching mode of the run is the baseline. None when it is not in the run."""
    name, _, client = baseline_mode.partition("@")
    base = next((m for m in modes if m.mode == name and (not client or m.client == client)), None)
    if base is None:
        return None
    base_p50 = base.stats.p50_ms
    for mode in modes:
        if base_p50 is not None and mode.stats.p50_ms:
            mode.speedup_vs_baseline = base_p50 / mode.stats.p50_ms
            # The baseline against itself is exactly 1: the same samples, not two draws.
            mode.speedup_vs_baseline_ci = (
                (1.0, 1.0) if mode is base else ratio_interval(base.samples_ms, mode.samples_ms)
            )
    return BaselineInfo(mode=base.mode, client=base.client, p50_ms=base_p50)


def apply_floor_ratio(modes: list[ModeResult], floor_clients: Mapping[str, str]) -> None:
    """Set ``p50_vs_floor`` of every mode whose floor measurement (``floor_clients``: mode
    name -> its floor client) is in ``modes`` with samples."""
    floors = {
        (mode.mode, tuple(mode.parameter_tags().items())): mode
        for mode in modes
        if floor_clients.get(mode.mode) == mode.client
    }
    for mode in modes:
        floor = floors.get((mode.mode, tuple(mode.parameter_tags().items())))
        if floor is not None and floor.stats.p50_ms and mode.stats.p50_ms is not None:
            mode.p50_vs_floor = mode.stats.p50_ms / floor.stats.p50_ms
            mode.p50_vs_floor_ci = (
                (1.0, 1.0) if mode is floor else ratio_interval(mode.samples_ms, floor.samples_ms)
            )


LOCAL_PROFILE = "local"
"""The unimpaired profile: the round-trip model's reference."""
SeriesKey = tuple[str, tuple[str, ...]]
"""A series and its commands: what must match between a measurement and its reference."""


def series_key(mode: ModeResult) -> SeriesKey:
    return mode.series, tuple(mode.commands)


def local_references(run: RunResult) -> dict[SeriesKey, tuple[str, float]]:
    """The published p50s of a run at ``local``, by series: the references of the
    round-trip model for the other profiles of its sweep. Empty for other profiles."""
    if run.profile.name != LOCAL_PROFILE:
        return {}
    return {
        series_key(mode): (run.run_id, mode.stats.p50_ms)
        for mode in run.modes
        if mode.published and mode.stats.p50_ms is not None
    }


def apply_rtt_model(
    modes: list[ModeResult], references: dict[SeriesKey, tuple[str, float]]
) -> None:
    """Set ``rtt_model`` of every mode with samples, a verified RTT and a reference. Where
    the profile adds no delay (``local``), the added RTT is 0: what the probe measures there
    is noise, and the model is the reference itself."""
    for mode in modes:
        reference = references.get(series_key(mode))
        check = mode.rtt_check
        added_rtt_ms = check.added_rtt_ms if check is not None else None
        if added_rtt_ms is None:
            added_rtt_ms = mode.verified_rtt_ms
        if mode.configured_rtt_ms == 0 and added_rtt_ms is not None:
            added_rtt_ms = 0.0
        if reference is None or added_rtt_ms is None or mode.stats.p50_ms is None:
            continue
        wire_p50 = mode.wire.p50 if mode.wire is not None and mode.wire.p50 else {}
        counted = wire_p50.get("round_trips")
        local_run_id, local_p50_ms = reference
        mode.rtt_model = predict(
            local_run_id,
            local_p50_ms,
            counted if counted is not None else float(mode.expected_round_trips),
            "wire" if counted is not None else "expected",
            added_rtt_ms,
        )


def write_results(result: RunResult, results_dir: Path) -> Path:
    """Write ``<results_dir>/<run_id>/results.json``; the rename keeps readers from ever
    seeing a half-written file."""
    return write_result_file(result, results_dir / result.run_id, "results.json")


def new_run_id(now: datetime) -> str:
    """``20261122T110000Z-abc123``: sortable by start time, unique by the random suffix."""
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"
