"""The crypto sweep's tables (pure): what each held key exchange costs each client.

``make crypto-sweep`` runs plan ``crypto-sweep`` once per step, each step against a device
that offers one SSH key exchange and one TLS group (DEVICE_CRYPTO_KEX, DEVICE_CRYPTO_TLS_GROUP:
``device.crypto.held`` in the results), each run over several profiles. From those runs'
documents this module writes markdown:

- per transport (SSH, then TLS), one row per mode x client x step: what the connections
  negotiated (the key exchange or group, and for TLS how many handshakes the device sent back
  for another key share, a HelloRetryRequest: one more round trip), or why the client could
  not connect (a client that cannot use the held algorithm fails every iteration, and a fault
  makes no number); the round trips counted on the wire, the TCP payload bytes per connection
  and the client's and the device's CPU per connection at the first profile (``local``: the
  CPU a handshake costs does not depend on the latency, and nothing is waiting there), and the
  p50 at every profile;
- what each step costs against the first (the reference: ``make crypto-sweep`` starts with the
  classical X25519 step): per mode x client x profile, the change in p50 with a 95 %
  percentile-bootstrap interval of the difference of the two medians (distribution-free; with
  ten iterations a series the interval is wide), said to be "within noise" when the interval
  holds zero, never ranked.
"""

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from bench_runner.influx_schema import Tag
from bench_runner.stats import percentile

Document = Mapping[str, Any]
Entry = Mapping[str, Any]

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 24
"""Fixed, so the same runs always give the same table."""
CONFIDENCE = 0.95
ERROR_CHARS = 90


class NotACryptoSweepError(ValueError):
    """A run whose device held nothing fixed: not a step of a crypto sweep."""


@dataclass(frozen=True, order=True)
class Step:
    kex: str
    tls_group: str

    @property
    def label(self) -> str:
        return f"{self.kex} / {self.tls_group}"


@dataclass
class Series:
    """One mode x client across the sweep: its entry per step and profile."""

    mode: str
    client: str
    transport: str
    entries: dict[tuple[Step, str], Entry] = field(default_factory=dict)


@dataclass(frozen=True)
class Sweep:
    steps: list[Step]
    profiles: list[str]
    series: list[Series]
    runs: list[Document]


def step_of(document: Document) -> Step:
    """The key exchange and TLS group the run's device held fixed."""
    device = document.get("device") or {}
    held = (device.get("crypto") or {}).get("held")
    if not held:
        raise NotACryptoSweepError(
            f"run {document.get('run_id')}: its device held no key exchange or TLS group fixed "
            "(DEVICE_CRYPTO_KEX, DEVICE_CRYPTO_TLS_GROUP): not a step of a crypto sweep"
        )
    return Step(held.get("kex") or "as profiled", held.get("tls_group") or "as profiled")


def collect(documents: Iterable[Document]) -> Sweep:
    """The sweep in the documents' order (oldest first: the order the steps ran in)."""
    steps: list[Step] = []
    profiles: list[str] = []
    series: dict[tuple[str, str], Series] = {}
    runs = list(documents)
    for document in runs:
        step = step_of(document)
        profile = document["profile"]["name"]
        if step not in steps:
            steps.append(step)
        if profile not in profiles:
            profiles.append(profile)
        for entry in document["modes"]:
            key = (entry["mode"], entry["client"])
            if key not in series:
                series[key] = Series(entry["mode"], entry["client"], entry["transport"])
            series[key].entries[(step, profile)] = entry
    return Sweep(steps, profiles, list(series.values()), runs)


def _values(entry: Entry, parameter: str) -> dict[str, int]:
    handshakes = entry.get("handshakes") or {}
    found = (handshakes.get("parameters") or {}).get(parameter) or {}
    values: dict[str, int] = found.get("values") or {}
    return values


def _named(values: Mapping[str, int]) -> str:
    if len(values) == 1:
        return next(iter(values))
    return ", ".join(f"{name} ({count})" for name, count in sorted(values.items()))


def negotiated(entry: Entry) -> str:
    """What the entry's connections negotiated, or why it has no figures."""
    if not entry["ok"]:
        messages = entry.get("error_messages") or ["failed"]
        first = " ".join(str(messages[0]).split())
        if len(first) > ERROR_CHARS:
            first = first[: ERROR_CHARS - 1] + "…"
        return "fails: " + first.replace("|", "\\|")
    if entry["transport"] == "ssh":
        kex = _values(entry, Tag.SSH_KEX)
        return _named(kex) if kex else "not seen"
    group = _values(entry, Tag.TLS_GROUP)
    text = _named(group) if group else "not seen"
    retries = _values(entry, Tag.TLS_HELLO_RETRY)
    if retries.get("true"):
        text += f", HelloRetryRequest {retries['true']}/{sum(retries.values())}"
    resumed = _values(entry, Tag.TLS_RESUMED)
    if resumed.get("true"):
        text += f", resumed {resumed['true']}/{sum(resumed.values())}"
    return text


@dataclass(frozen=True)
class Costs:
    """Per connection, from one entry: wire round trips and payload bytes (p50 of the
    iterations, over the connections of one), client and device CPU (the mode's CPU over its
    measured iterations' connections)."""

    round_trips: float | None
    bytes_per_connection: float | None
    client_cpu_ms: float | None
    device_cpu_ms: float | None


def costs(entry: Entry) -> Costs | None:
    if not entry["ok"]:
        return None
    wire = (entry.get("wire") or {}).get("p50") or {}
    connects = wire.get("connects") or None
    payload = None
    if connects and wire.get("bytes_out") is not None and wire.get("bytes_in") is not None:
        payload = (wire["bytes_out"] + wire["bytes_in"]) / connects
    resources = entry.get("resources") or {}
    connections = entry["iterations"] * connects if connects else None

    def per_connection_ms(seconds: float | None) -> float | None:
        return None if seconds is None or not connections else seconds * 1000 / connections

    return Costs(
        round_trips=wire.get("round_trips"),
        bytes_per_connection=payload,
        client_cpu_ms=per_connection_ms(resources.get("runner_cpu_s")),
        device_cpu_ms=per_connection_ms(resources.get("device_cpu_s")),
    )


@dataclass(frozen=True)
class Change:
    """p50(step) - p50(reference), and the bootstrap interval of that difference."""

    delta_ms: float
    low_ms: float
    high_ms: float

    @property
    def within_noise(self) -> bool:
        return self.low_ms <= 0 <= self.high_ms


def change(step: Sequence[float], reference: Sequence[float]) -> Change:
    """The difference of the medians with its percentile-bootstrap interval."""
    rng = random.Random(BOOTSTRAP_SEED)
    deltas = sorted(
        median(rng.choices(step, k=len(step))) - median(rng.choices(reference, k=len(reference)))
        for _ in range(BOOTSTRAP_RESAMPLES)
    )
    tail = (1 - CONFIDENCE) / 2
    return Change(
        delta_ms=median(step) - median(reference),
        low_ms=percentile(deltas, tail),
        high_ms=percentile(deltas, 1 - tail),
    )


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _p50(entry: Entry | None) -> str:
    if entry is None:
        return "not run"
    if not entry["ok"]:
        return "fails"
    return _number(entry["stats"]["p50_ms"])


def _series_label(series: Series, entry: Entry) -> str:
    return f"{series.mode} | {series.client} {entry.get('client_version') or ''}".rstrip()


def _first_entry(series: Series, step: Step, profiles: Sequence[str]) -> Entry | None:
    for profile in profiles:
        if (step, profile) in series.entries:
            return series.entries[(step, profile)]
    return None


def _step_table(sweep: Sweep, transport: str) -> list[str]:
    first = sweep.profiles[0]
    head = (
        "| mode | client | held | negotiated | wire RT | bytes / conn | "
        "client CPU ms / conn | device CPU ms / conn | "
        + " | ".join(f"p50 {profile} ms" for profile in sweep.profiles)
        + " |"
    )
    lines = [head, "|" + " --- |" * (8 + len(sweep.profiles))]
    for series in sweep.series:
        if (series.transport == "ssh") != (transport == "ssh"):
            continue
        for step in sweep.steps:
            entry = _first_entry(series, step, sweep.profiles)
            if entry is None:
                continue
            held = step.kex if transport == "ssh" else step.tls_group
            at_first = series.entries.get((step, first))
            found = costs(at_first) if at_first is not None else None
            cells = [
                _series_label(series, entry),
                f"`{held}`",
                negotiated(entry),
                _number(found.round_trips if found else None, 0),
                _number(found.bytes_per_connection if found else None, 0),
                _number(found.client_cpu_ms if found else None),
                _number(found.device_cpu_ms if found else None),
                *(_p50(series.entries.get((step, profile))) for profile in sweep.profiles),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def _cost_cell(step_entry: Entry | None, reference: Entry | None) -> str:
    if step_entry is None or reference is None:
        return "not run"
    if not step_entry["ok"] or not reference["ok"]:
        return "-"
    found = change(step_entry["samples_ms"], reference["samples_ms"])
    cell = f"{found.delta_ms:+.1f} [{found.low_ms:+.1f}, {found.high_ms:+.1f}]"
    return cell + (" within noise" if found.within_noise else "")


def _cost_table(sweep: Sweep, transport: str) -> list[str]:
    reference = sweep.steps[0]
    head = (
        "| mode | client | step | Δ wire RT | Δ bytes / conn | "
        + " | ".join(f"Δ p50 {profile} ms [95 % interval]" for profile in sweep.profiles)
        + " |"
    )
    lines = [head, "|" + " --- |" * (5 + len(sweep.profiles))]
    first = sweep.profiles[0]
    for series in sweep.series:
        if (series.transport == "ssh") != (transport == "ssh"):
            continue
        base = series.entries.get((reference, first))
        base_costs = costs(base) if base is not None else None
        for step in sweep.steps[1:]:
            entry = _first_entry(series, step, sweep.profiles)
            if entry is None:
                continue
            at_first = series.entries.get((step, first))
            found = costs(at_first) if at_first is not None else None
            held = step.kex if transport == "ssh" else step.tls_group
            cells = [
                _series_label(series, entry),
                f"`{held}`",
                _difference(found, base_costs, "round_trips", 0),
                _difference(found, base_costs, "bytes_per_connection", 0),
                *(
                    _cost_cell(
                        series.entries.get((step, profile)),
                        series.entries.get((reference, profile)),
                    )
                    for profile in sweep.profiles
                ),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def _difference(step: Costs | None, reference: Costs | None, name: str, digits: int) -> str:
    if step is None or reference is None:
        return "-"
    a, b = getattr(step, name), getattr(reference, name)
    return "-" if a is None or b is None else f"{a - b:+,.{digits}f}"


def _context(sweep: Sweep) -> list[str]:
    first = sweep.runs[0]
    device = first.get("device") or {}
    runner = first.get("runner") or {}
    rtts: dict[str, list[float]] = {}
    for run in sweep.runs:
        for entry in run["modes"]:
            if entry.get("verified_rtt_ms") is not None:
                rtts.setdefault(run["profile"]["name"], []).append(entry["verified_rtt_ms"])
    plan = first.get("plan")
    entry = first["modes"][0] if first["modes"] else {}
    return [
        f"- runs: {', '.join(run['run_id'] for run in sweep.runs)} (plan {plan}, lab commit "
        f"{(first.get('lab') or {}).get('commit', 'unknown')}, engine "
        f"{first['profile'].get('engine', 'unknown')}, {entry.get('iterations', '?')} iterations "
        f"of {len(entry.get('commands') or [])} command after {entry.get('warmup', '?')} warm-up)",
        f"- device: {device.get('openssh_version', '?')}, {device.get('openssl_version', '?')}, "
        f"{device.get('nginx_version', '?')}, crypto profile {device.get('crypto_profile', '?')}",
        f"- runner: Python {runner.get('python', '?')}, {runner.get('openssl', '?')}; "
        f"client: {runner.get('openssh', '?')}",
        "- verified RTT (median of the series' gates): "
        + ", ".join(f"{profile} {median(values):.2f} ms" for profile, values in rtts.items()),
    ]


def sweep_markdown(documents: Iterable[Document], command: str, made_at: str) -> str:
    """The whole page: context, per transport the steps' table and the costs' table."""
    sweep = collect(documents)
    if not sweep.runs:
        raise NotACryptoSweepError("no runs")
    reference = sweep.steps[0]
    lines = [
        "# Crypto sweep",
        "",
        f"Made {made_at} by `{command}`.",
        "",
        *_context(sweep),
        "",
        "Figures per connection are at the first profile; `bytes / conn` is TCP payload both "
        "ways (handshake, login and one command); CPU is the mode's over its measured "
        "connections (the client's process and its children; the device's whole container).",
    ]
    for transport, title in (("ssh", "SSH key exchange"), ("https", "TLS key-share group")):
        if not any((s.transport == "ssh") == (transport == "ssh") for s in sweep.series):
            continue
        held = reference.kex if transport == "ssh" else reference.tls_group
        lines += [
            "",
            f"## {title}",
            "",
            *_step_table(sweep, transport),
            "",
            f"Against the first step (`{held}`): the change of p50 in ms, with the 95 % "
            "percentile-bootstrap interval of the difference of medians.",
            "",
            *_cost_table(sweep, transport),
        ]
    return "\n".join(lines) + "\n"
