"""The impairment table (``bench-runner impairment-table``, pure): how each mode degrades under
loss, beside what the loss model says it should (docs/bad-links.md).

One table per RTT among the runs' profiles (``regional`` with its loss profiles, then
``continental`` with its), each with its context: runs, plan, lab commit, engine, verified
RTT, iterations, client versions. A row per mode x profile, from ``results.json``:

- p50, p95 and p99 with their 95 % intervals (``stats``: order statistics, stats.py);
- the model's p95 and p99 (loss_model.py, applied to each iteration's recorded counts), and
  whether the measured one follows it: the
  model's value inside the measured interval is "follows"; an interval wholly above it is
  "above" (the measured tail is longer than the model says), wholly below it "below". Nothing
  is judged without both an interval and a model value;
- the share of successful iterations in which the capture saw a segment sent again
  (``wire.recovered_iterations``), with its exact 95 % interval (Clopper-Pearson, from the
  same binomial as stats.py), beside the model's probability of meeting a loss;
- the p50 of the time split's ``recovery`` part, over every iteration and over those that
  had some; the retransmission timeouts per 100 iterations (``wire.per_iteration[].timeouts``).

What the results do not have (older results, QUIC's counters, which the capture cannot
see, a p99 interval under 368 samples) is a dash with a footnote saying why, never a zero.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from statistics import median
from typing import Any

from bench_runner import loss_model
from bench_runner.stats import CI_LEVEL, binomial_cdf, percentile, quantile_interval_ranks
from bench_runner.wire.model import WireIteration

Document = Mapping[str, Any]
Entry = Mapping[str, Any]

DASH = "\u2014"
SUPERSCRIPTS = "\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
QUIC_TRANSPORT = "h3"
BISECTION_STEPS = 60
"""Halvings of [0, 1] for a share's interval: far below the table's 0.1 % resolution."""

NOTES: dict[str, str] = {
    "quic": "HTTP/3 (QUIC) with a client that counts none of its loss recovery: QUIC's "
    "packet numbers and acknowledgments are encrypted, so the capture counts no "
    "retransmission and no timeout, and the model, which needs those counts, is null. The "
    "tails are measured.",
    "quic_counted": "HTTP/3 (QUIC): counted by the client library, quic-go, as its own loss "
    "recovery saw it (the capture cannot: QUIC is encrypted): its packets declared lost, its "
    "probe timeouts, and the server's packet numbers missing on arrival, which include the "
    "few the server skips on purpose. The model applies RFC 9002's probe timeouts.",
    "quic_time": "HTTP/3 (QUIC): the capture cannot tell which datagram carries data sent "
    "again, so no time is split out as recovery.",
    "older": "Not in these results: written before the loss counters, the recovery part "
    "and the loss model (results.json schema version 6), or before the intervals (5).",
    "not_counted": "The capture could not tell, for every iteration, whether a segment was "
    "sent again.",
    "no_capture": "No capture for this mode: nothing was counted on the wire "
    "(results.json's `wire.reason`).",
    "no_loss": "No loss in this profile: no model.",
    "no_model": "No model for this mode: it needs the wire counts and a verified RTT.",
    "no_clean": "Every iteration met a retransmission: no clean p50 to build the model's "
    "quantiles on.",
    "p95_samples": "A p95's 95 % interval needs at least {p95} successful iterations.",
    "p99_samples": "A p99's 95 % interval needs at least {p99} successful iterations "
    "(`make bench-impairment ITERATIONS=400`).",
    "no_samples": "No successful iteration.",
    "gate": "Not published: the RTT gate did not find the profile in effect (results.json "
    "keeps the mode; no figure is made from it).",
}

HEADER = (
    "| mode | transport | client | conns / cmds per request | profile | loss each way "
    "| iterations (failed) | p50 ms [95 %] | p95 ms [95 %] | model p95 ms | p95 vs model "
    "| p99 ms [95 %] | model p99 ms | p99 vs model | met a retransmission [95 %] "
    "| model P(meet) | recovery p50 ms: all / recovered | timeouts per 100 iterations |"
)


@cache
def min_samples(q: float) -> int:
    """The fewest samples whose ``q``-quantile has a 95 % interval (stats.py)."""
    n = 1
    while quantile_interval_ranks(n, q) is None:
        n += 1
    return n


@dataclass
class Notes:
    """The footnotes of one page, numbered in the order first used."""

    used: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def marker(number: int) -> str:
        return SUPERSCRIPTS[number - 1] if number <= len(SUPERSCRIPTS) else f"({number})"

    def mark(self, reason: str) -> str:
        """The footnote marker of ``reason``."""
        return self.marker(self.used.setdefault(reason, len(self.used) + 1))

    def dash(self, reason: str) -> str:
        """A dash marked with the footnote of ``reason``."""
        return DASH + self.mark(reason)

    def lines(self) -> list[str]:
        """The footnotes used, in their order."""
        p95, p99 = min_samples(0.95), min_samples(0.99)
        return [
            f"- {self.marker(number)} {NOTES[key].format(p95=p95, p99=p99)}"
            for key, number in self.used.items()
        ]


def share_interval(hits: int, total: int, level: float = CI_LEVEL) -> tuple[float, float]:
    """The exact (Clopper-Pearson) ``level`` interval of a share of ``hits`` in ``total``
    independent trials: the lower end is the share at which ``hits`` or more would happen
    with half the rest's probability, the upper end the one at which ``hits`` or fewer
    would."""
    if total < 1 or not 0 <= hits <= total:
        raise ValueError(f"no share of {hits} in {total}")
    tail = (1.0 - level) / 2.0

    def solve(rising: Callable[[float], float], target: float) -> float:
        """Where ``rising`` (increasing over the share) reaches ``target``, by bisection."""
        low, high = 0.0, 1.0
        for _ in range(BISECTION_STEPS):
            middle = (low + high) / 2
            if rising(middle) < target:
                low = middle
            else:
                high = middle
        return (low + high) / 2

    # P(X >= hits) and P(X > hits) both rise with the share.
    lower = 0.0 if hits == 0 else solve(lambda p: 1.0 - binomial_cdf(total, p)[hits - 1], tail)
    upper = (
        1.0 if hits == total else solve(lambda p: 1.0 - binomial_cdf(total, p)[hits], 1.0 - tail)
    )
    return lower, upper


def verdict(model: float, interval: tuple[float, float]) -> str:
    """Where the measured figure lies against the model's value."""
    low, high = interval
    if model < low:
        return "above"
    if model > high:
        return "below"
    return "follows"


def _ms(value: float) -> str:
    return f"{value:,.1f}"


def _pct(share: float) -> str:
    return f"{share * 100:.1f} %"


def _loss(value: float) -> str:
    return f"{value:g} %"


def _text(value: object) -> str:
    return str(value).replace("|", "\\|")


@dataclass(frozen=True)
class Row:
    """One mode measured at one profile."""

    run: Document
    entry: Entry

    model: Mapping[str, Any] | None = None
    """The loss model beside the row (``ModelOf``); None: none."""

    @property
    def profile(self) -> Mapping[str, Any]:
        profile: Mapping[str, Any] = self.run["profile"]
        return profile

    @property
    def loss_pct(self) -> float:
        return float(self.profile.get("loss_pct") or 0.0)

    @property
    def quic(self) -> bool:
        return self.entry.get("transport") == QUIC_TRANSPORT

    @property
    def stats(self) -> Mapping[str, Any]:
        stats: Mapping[str, Any] = self.entry.get("stats") or {}
        return stats

    @property
    def samples(self) -> int:
        return int(self.stats.get("n") or 0)

    @property
    def published(self) -> bool:
        return bool(self.entry.get("published", True))


ModelOf = Callable[[Document, Entry], Mapping[str, Any] | None]
"""Where a row's loss model comes from."""


def recounted_model(run: Document, entry: Entry) -> Mapping[str, Any] | None:
    """The loss model from the mode's recorded iterations, by this commit's loss_model.py
    (None where the counts it needs are missing: no capture, a QUIC client that counts
    nothing, results older than the counters)."""
    rtt = entry.get("verified_rtt_ms")
    wire = entry.get("wire") or {}
    samples = entry.get("samples_ms") or []
    counts = wire.get("per_iteration") or []
    if rtt is None or not wire.get("available") or len(counts) != len(samples):
        return None
    model = loss_model.estimate(
        float(run["profile"].get("loss_pct") or 0.0),
        float(rtt),
        [
            (float(wall_ms), WireIteration.model_validate(count))
            for wall_ms, count in zip(samples, counts, strict=True)
        ],
        quic=entry.get("transport") == QUIC_TRANSPORT,
    )
    return model.model_dump() if model is not None else None


def series_name(entry: Entry) -> str:
    """The series a row belongs to (``modes[].series``; built the same way for results
    that lack it)."""
    if entry.get("series"):
        return str(entry["series"])
    version = str(entry.get("client_version") or "").split(",")[0].strip()
    name = f"{entry['mode']} \u00b7 {entry['client']} {version}".rstrip()
    settings = " ".join(f"{k}={v}" for k, v in (entry.get("parameters") or {}).items())
    return f"{name} \u00b7 {settings}" if settings else name


def _client(entry: Entry) -> str:
    version = str(entry.get("client_version") or "").split(",")[0].strip()
    parts = [f"{entry['client']} {version}".rstrip()]
    parts += [f"{key} {value}" for key, value in (entry.get("parameters") or {}).items()]
    return _text(", ".join(parts))


def _shape(entry: Entry, notes: Notes) -> str:
    if "connections_per_iteration" not in entry:
        return notes.dash("older")
    connections = entry.get("connections_per_iteration")
    commands = entry.get("commands_per_request")
    return " / ".join(DASH if value is None else str(value) for value in (connections, commands))


@dataclass(frozen=True)
class Measured:
    """A measured quantile as a cell; its interval, or why it has none."""

    cell: str
    interval: tuple[float, float] | None
    gap: str | None


def _measured(row: Row, q: str, notes: Notes) -> Measured:
    """The measured ``q`` (``p50``, ``p95``, ``p99``) with its interval."""
    if not row.published:
        return Measured(notes.dash("gate"), None, "gate")
    if row.samples == 0:
        return Measured(notes.dash("no_samples"), None, "no_samples")
    value = row.stats.get(f"{q}_ms")
    if value is None:
        return Measured(notes.dash("older"), None, "older")
    low, high = row.stats.get(f"{q}_ci_low_ms"), row.stats.get(f"{q}_ci_high_ms")
    if low is not None and high is not None:
        return Measured(f"{_ms(value)} [{_ms(low)}, {_ms(high)}]", (float(low), float(high)), None)
    few = row.samples < min_samples(int(q[1:]) / 100)
    gap = f"{q}_samples" if few and q != "p50" else "older"
    return Measured(f"{_ms(value)} [{notes.dash(gap)}]", None, gap)


def _model_gap(row: Row) -> str | None:
    """Why the row has no model, or None when it has one."""
    if row.model is not None:
        return None
    if row.loss_pct <= 0:
        return "no_loss"
    if row.quic:
        return "quic"
    if "loss_model" not in row.entry:
        return "older"
    return "no_model"


def _judged(
    row: Row, q: str, notes: Notes, tally: dict[str, dict[str, int]]
) -> tuple[str, str, str]:
    """The measured ``q`` cell, the model's, and the verdict (counted in ``tally``)."""
    measured = _measured(row, q, notes)
    gap = _model_gap(row)
    value = None if gap is not None or row.model is None else row.model.get(f"{q}_ms")
    if value is None:
        gap = gap or "no_clean"
        return measured.cell, notes.dash(gap), notes.dash(gap)
    model = float(value)
    modelled = _ms(model)
    if measured.interval is None:
        return measured.cell, modelled, notes.dash(measured.gap or "older")
    found = verdict(model, measured.interval)
    tally[q][found] = tally[q].get(found, 0) + 1
    return measured.cell, modelled, found


def _wire_gap(row: Row) -> str:
    """Why the row's wire counts say nothing about retransmissions."""
    wire = row.entry.get("wire")
    if not wire or not wire.get("available"):
        return "no_capture"
    if row.quic:
        return "quic"
    items = wire.get("per_iteration") or []
    if "recovered_iterations" not in wire or (items and "retransmits_out" not in items[0]):
        return "older"
    return "not_counted"


def _met(row: Row, notes: Notes) -> str:
    if not row.published:
        return notes.dash("gate")
    wire = row.entry.get("wire") or {}
    recovered = wire.get("recovered_iterations")
    total = len(wire.get("per_iteration") or [])
    if recovered is None:
        return notes.dash(_wire_gap(row))
    if total == 0:
        return notes.dash("no_samples")
    low, high = share_interval(int(recovered), total)
    counted_by = notes.mark("quic_counted") if row.quic else ""
    return f"{_pct(recovered / total)} [{_pct(low)}, {_pct(high)}]{counted_by}"


def _p_meet(row: Row, notes: Notes) -> str:
    gap = _model_gap(row)
    if gap is not None:
        return notes.dash(gap)
    assert row.model is not None
    return _pct(float(row.model["p_meet"]))


def _recovery(row: Row, notes: Notes) -> str:
    if not row.published:
        return notes.dash("gate")
    if row.quic:
        return notes.dash("quic_time")
    split = row.entry.get("time_split")
    if not split:
        return notes.dash("no_capture" if row.samples else "no_samples")
    overall = (split.get("p50_ms") or {}).get("recovery")
    if overall is None:
        return notes.dash("older")
    spent = [
        float(item["recovery_ms"])
        for item in split.get("per_iteration") or []
        if (item.get("recovery_ms") or 0) > 0
    ]
    within = _ms(percentile(spent, 0.5)) if spent else "none"
    return f"{_ms(overall)} / {within}"


def _timeouts(row: Row, notes: Notes) -> str:
    if not row.published:
        return notes.dash("gate")
    wire = row.entry.get("wire") or {}
    items = wire.get("per_iteration") or []
    counts = [item.get("timeouts") for item in items]
    if not wire.get("available") or any(count is None for count in counts):
        return notes.dash(_wire_gap(row))
    if not counts:
        return notes.dash("no_samples")
    counted_by = notes.mark("quic_counted") if row.quic else ""
    return f"{100 * sum(counts) / len(counts):.1f}{counted_by}"


def row_cells(row: Row, notes: Notes, tally: dict[str, dict[str, int]]) -> list[str]:
    entry = row.entry
    p50 = _measured(row, "p50", notes).cell
    p95, model_p95, p95_verdict = _judged(row, "p95", notes, tally)
    p99, model_p99, p99_verdict = _judged(row, "p99", notes, tally)
    return [
        f"`{entry['mode']}`",
        _text(entry.get("transport", DASH)),
        _client(entry),
        _shape(entry, notes),
        f"`{row.profile['name']}`",
        _loss(row.loss_pct),
        f"{row.samples} ({int(row.stats.get('errors') or 0)})",
        p50,
        p95,
        model_p95,
        p95_verdict,
        p99,
        model_p99,
        p99_verdict,
        _met(row, notes),
        _p_meet(row, notes),
        _recovery(row, notes),
        _timeouts(row, notes),
    ]


@dataclass
class Group:
    """The runs of one RTT: a table."""

    rtt_ms: float
    runs: list[Document] = field(default_factory=list)

    def ordered_runs(self) -> list[Document]:
        """Least loss first; the order given among equals."""
        return sorted(
            self.runs,
            key=lambda run: (float(run["profile"].get("loss_pct") or 0.0), run["profile"]["name"]),
        )

    @property
    def title(self) -> str:
        return str(self.ordered_runs()[0]["profile"]["name"])


def groups(runs: Iterable[Document]) -> list[Group]:
    """The runs by their profile's RTT, shortest first."""
    found: dict[float, Group] = {}
    for run in runs:
        rtt = float(run["profile"].get("rtt_ms") or 0.0)
        found.setdefault(rtt, Group(rtt)).runs.append(run)
    return [found[rtt] for rtt in sorted(found)]


def _rows(group: Group, model_of: ModelOf) -> list[Row]:
    """Each series (in the order first met), at each profile (least loss first)."""
    runs = group.ordered_runs()
    order: list[str] = []
    for run in group.runs:
        for entry in run.get("modes") or []:
            name = series_name(entry)
            if name not in order:
                order.append(name)
    return [
        Row(run, entry, model_of(run, entry))
        for name in order
        for run in runs
        for entry in run.get("modes") or []
        if series_name(entry) == name
    ]


def _distinct(values: Iterable[object]) -> str:
    seen = list(dict.fromkeys(str(value) for value in values if value not in (None, "")))
    return ", ".join(seen) if seen else "unknown"


def _verified_rtt(run: Document) -> str:
    verified = [
        float(entry["verified_rtt_ms"])
        for entry in run.get("modes") or []
        if entry.get("verified_rtt_ms") is not None
    ]
    shown = f"{median(verified):.1f} ms" if verified else "not verified"
    return f"`{run['profile']['name']}` {shown}"


def context_lines(group: Group) -> list[str]:
    """What the table's figures depend on."""
    runs = group.ordered_runs()
    entries = [entry for run in runs for entry in run.get("modes") or []]
    engines = _distinct(run["profile"].get("engine") for run in runs)
    counts = _distinct(
        f"{entry.get('iterations', '?')} measured after {entry.get('warmup', '?')} warm-up"
        for entry in entries
    )
    commands = _distinct(len(entry.get("commands") or []) for entry in entries)
    clients = _distinct(
        f"{entry['client']} {entry.get('client_version') or ''}".strip() for entry in entries
    )
    device = runs[0].get("device") or {}
    lines = [
        f"- runs: {', '.join(str(run['run_id']) for run in runs)} (plan "
        f"{_distinct(run.get('plan') for run in runs)}, lab commit "
        f"{_distinct((run.get('lab') or {}).get('commit') for run in runs)}, netem engine "
        f"{engines})",
        "- machine: not recorded in results.json: name it beside the table",
        f"- verified RTT (median of the modes' gates): {', '.join(map(_verified_rtt, runs))}",
        f"- iterations: {counts}; {commands} commands an iteration",
        f"- clients: {_text(clients)}",
        "- device: "
        + _distinct(
            device.get(key) for key in ("openssh_version", "openssl_version", "nginx_version")
        ),
    ]
    if "tc" in engines.split(", "):
        lines.append(
            "- engine `tc` drops fewer of the device's answers than configured "
            '(docs/profiles.md, "Impaired profiles"): measure loss with `nfq`'
        )
    return lines


def _tally_line(tally: dict[str, dict[str, int]]) -> str:
    parts = []
    for q in ("p95", "p99"):
        counts = tally[q]
        judged = sum(counts.values())
        if not judged:
            parts.append(f"{q}: not judged (no row has both an interval and a model)")
            continue
        found = ", ".join(
            f"{name} in {counts[name]}"
            for name in ("follows", "above", "below")
            if counts.get(name)
        )
        parts.append(f"{q}: {found} of {judged} rows judged")
    return "Measured against the model: " + "; ".join(parts) + "."


def impairment_markdown(
    runs: Sequence[Document], command: str, made_at: str, model_of: ModelOf = recounted_model
) -> str:
    """The page: per RTT, the context and the table; then the footnotes. The model beside
    each row is ``model_of``'s: by default this commit's, from the recorded counts, so that
    runs made by different commits are judged alike (results.json's ``loss_model`` keeps
    what the run's own commit said)."""
    notes = Notes()
    lines = [
        "# How each transport degrades under loss",
        "",
        f"Made by `{command}` on {made_at}. Intervals are 95 %. A model value inside the "
        'measured interval "follows"; "above": the measured interval lies above the model '
        '(a longer tail than the model says); "below": under it. "Met a retransmission": '
        "successful iterations in which the capture saw a segment sent again, either way "
        "(HTTP/3: in which the client counted a loss or a probe timeout). "
        "Recovery: the time split's recovery part, over every iteration and over those with "
        "some. The model is loss_model.py's at the commit that made this page, applied to each "
        "iteration's recorded counts. Two figures whose intervals overlap are within noise of "
        "each other.",
    ]
    for group in groups(runs):
        tally: dict[str, dict[str, int]] = {"p95": {}, "p99": {}}
        rows = [row_cells(row, notes, tally) for row in _rows(group, model_of)]
        lines += [
            "",
            f"## `{group.title}` ({group.rtt_ms:g} ms RTT)",
            "",
            *context_lines(group),
            "",
            HEADER,
            "|" + " --- |" * HEADER.count(" | ") + " --- |",
            *("| " + " | ".join(cells) + " |" for cells in rows),
            "",
            _tally_line(tally),
        ]
    if notes.used:
        lines += ["", *notes.lines()]
    return "\n".join(lines) + "\n"
