"""Markdown comparison of a reproduction run with the published figures: per experiment its
citation, the lab runs, the publication's conditions and what differs, then one table per
case x metric with every published subject's lab figure, published figure, speedup over the
reference subject in both, and whether the ranking holds.

A speedup is ``reference / figure`` for a metric where lower is better and ``figure /
reference`` where higher is better, so above 1 is better than the reference in both columns.
The ranking holds when no pair of ranked subjects measured in both is ordered the other way
round by the lab than by the publication (a subject whose lab mode times a different operation
is shown but not ranked), pairs the publication separates by no more than
``TIE_TOLERANCE`` (relative to the larger figure) counting as ties: run-to-run noise of
equal modes is not a reversal.

The lab's side is held to its intervals: two lab figures whose 95 % intervals overlap are
``within noise`` (``stats.intervals_overlap``), never ordered, so such a pair is never a
reversal, and a lab speedup whose subject is within noise of the reference says so. The lab
column shows each figure of a p50 with its interval. A lab figure without an interval (a
mean, a sum of phase medians, a Locust step, results written before intervals existed) is
ordered by its value as before and marked ``interval unknown`` where a p50's would be: not
ordering those would leave the NETCONF and parallel-ssh reproductions without a comparison.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from bench_runner.reproduce.figures import (
    HIGHER_IS_BETTER,
    INTERVAL_METRICS,
    Document,
    LabFigure,
    lab_figure,
)
from bench_runner.reproduce.published import CaseValue, Experiment, Metric, Subject
from bench_runner.stats import intervals_overlap

TIE_TOLERANCE = 0.05

METRIC_LABELS: dict[Metric, str] = {
    "p50_ms": "p50 (ms)",
    "throughput_mib_s": "throughput (MiB/s)",
    "requests_per_s": "requests/s",
    "rpc_total_ms": "RPC time (ms)",
    "setup_ms": "setup (ms)",
    "session_ms": "new session per operation, mean (ms)",
    "command_ms": "command on a kept session, mean (ms)",
}


@dataclass(frozen=True)
class Row:
    subject: Subject
    published: float
    lab: LabFigure | None
    published_speedup: float | None
    lab_speedup: float | None
    lab_within_noise: bool = False
    """The lab's figure is within noise of the reference subject's (intervals overlap)."""


@dataclass(frozen=True)
class Section:
    case: dict[str, CaseValue]
    metric: Metric
    rows: list[Row]
    reversals: list[tuple[str, str]]
    """(a, b): the publication has a ahead of b, the lab b ahead of a, apart in the lab."""
    within_noise: list[tuple[str, str]]
    """Ranked subjects both measured whose lab intervals overlap: the lab orders them not."""

    @property
    def compared(self) -> int:
        """Ranked subjects with a lab figure."""
        return sum(row.lab is not None and row.subject.ranked for row in self.rows)

    @property
    def ranking_holds(self) -> bool | None:
        """None when fewer than two subjects have both figures: nothing to rank."""
        return None if self.compared < 2 else not self.reversals


def speedup(figure: float | None, reference: float | None, metric: Metric) -> float | None:
    """How much better ``figure`` is than ``reference`` (module docstring); None without
    both, or with a zero where it would divide."""
    if figure is None or reference is None:
        return None
    numerator, denominator = (
        (figure, reference) if metric in HIGHER_IS_BETTER else (reference, figure)
    )
    return numerator / denominator if denominator else None


def _ahead(a: float, b: float, metric: Metric) -> bool:
    return a > b if metric in HIGHER_IS_BETTER else a < b


def lab_within_noise(a: LabFigure | None, b: LabFigure | None) -> bool:
    """Both lab figures have intervals and they overlap (module docstring: a figure without
    one is ordered by its value)."""
    if a is None or b is None or a.interval is None or b.interval is None:
        return False
    return intervals_overlap(a.interval, b.interval)


def noise_pairs(rows: Sequence[Row]) -> list[tuple[str, str]]:
    """Ranked subjects both measured by the lab whose intervals overlap."""
    ranked = [row for row in rows if row.lab and row.subject.ranked]
    return [
        (first.subject.name, second.subject.name)
        for first, second in combinations(ranked, 2)
        if lab_within_noise(first.lab, second.lab)
    ]


def reversals(rows: Sequence[Row], metric: Metric) -> list[tuple[str, str]]:
    """Pairs the lab orders against the publication; ties within ``TIE_TOLERANCE``,
    pairs within noise in the lab and subjects that are not ranked aside."""
    noise = set(noise_pairs(rows))
    measured = [
        (row.subject.name, row.published, row.lab.value)
        for row in rows
        if row.lab and row.subject.ranked
    ]
    found = []
    for first, second in combinations(measured, 2):
        if (first[0], second[0]) in noise:
            continue
        larger = max(abs(first[1]), abs(second[1]))
        if larger == 0 or abs(first[1] - second[1]) / larger <= TIE_TOLERANCE:
            continue
        ahead, behind = (first, second) if _ahead(first[1], second[1], metric) else (second, first)
        if _ahead(behind[2], ahead[2], metric):
            found.append((ahead[0], behind[0]))
    return found


def sections(experiment: Experiment, runs: Sequence[Document]) -> list[Section]:
    """One section per case (in the order the figures first name it) x metric (in the
    experiment's order), its rows in the experiment's subject order."""
    cases: list[dict[str, CaseValue]] = []
    for figure in experiment.figures:
        if figure.case not in cases:
            cases.append(figure.case)
    built = []
    for case in cases:
        for spec in experiment.metrics:
            published = {
                figure.subject: figure.value
                for figure in experiment.figures
                if figure.case == case and figure.metric == spec.name
            }
            if not published:
                continue
            lab: dict[str, LabFigure | None] = {}
            lab_case = {
                key: value for key, value in case.items() if key not in experiment.publication_keys
            }
            for subject in experiment.subjects:
                mode = experiment.lab_mode(subject, spec.name)
                lab[subject.name] = (
                    lab_figure(runs, lab_case, mode, subject.client, spec.name, experiment.requests)
                    if mode is not None and subject.client is not None
                    else None
                )
            reference_lab = lab.get(experiment.reference)
            rows = [
                Row(
                    subject=subject,
                    published=published[subject.name],
                    lab=lab[subject.name],
                    published_speedup=speedup(
                        published[subject.name], published.get(experiment.reference), spec.name
                    ),
                    lab_speedup=speedup(
                        _value(lab[subject.name]),
                        _value(reference_lab),
                        spec.name,
                    ),
                    lab_within_noise=subject.name != experiment.reference
                    and lab_within_noise(lab[subject.name], reference_lab),
                )
                for subject in experiment.subjects
                if subject.name in published
            ]
            built.append(
                Section(case, spec.name, rows, reversals(rows, spec.name), noise_pairs(rows))
            )
    return built


def _value(figure: LabFigure | None) -> float | None:
    return None if figure is None else figure.value


def _number(value: float | None) -> str:
    if value is None:
        return "—"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}x"


def lab_cell(figure: LabFigure | None, metric: Metric) -> str:
    """The lab's figure with its interval, ``155.9 [154.2-157.8]`` (an en dash); a p50
    without one says ``interval unknown``."""
    if figure is None:
        return _number(None)
    if figure.interval is not None:
        low, high = figure.interval
        return f"{_number(figure.value)} [{_number(low)}\N{EN DASH}{_number(high)}]"
    if metric in INTERVAL_METRICS:
        return f"{_number(figure.value)} (interval unknown)"
    return _number(figure.value)


def _case(case: Mapping[str, CaseValue]) -> str:
    return ", ".join(f"{key}={value}" for key, value in case.items())


def _verdict(section: Section) -> str:
    if section.ranking_holds is None:
        return "not compared (fewer than two subjects measured by the lab)"
    noise = "; ".join(f"{a} and {b}" for a, b in section.within_noise)
    within = f"; within noise in the lab, not ordered: {noise}" if noise else ""
    if section.ranking_holds:
        return f"yes ({section.compared} subjects{within})"
    pairs = "; ".join(
        f"{a} ahead of {b} published, behind in the lab" for a, b in section.reversals
    )
    return f"no: {pairs}{within}"


def client_label(client: str, version: str) -> str:
    """``httpx 0.28.1``; a version that already names its libraries (``parallel-ssh 2.16.0,
    ssh2-python 1.2.0``, ``OpenSSH_9.2p1``) stands alone."""
    return version if version[:1].isalpha() else f"{client} {version}"


def _section_markdown(experiment: Experiment, section: Section) -> list[str]:
    better = "higher" if section.metric in HIGHER_IS_BETTER else "lower"
    reference = experiment.reference
    published = f"published (x {reference}'s time)" if experiment.relative else "published"
    lines = [
        f"### {_case(section.case)} · {METRIC_LABELS[section.metric]}, {better} is better",
        "",
        f"| subject | lab [95 % CI] | {published} | lab speedup vs {reference} | published speedup "
        f"vs {reference} | lab client | note |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in section.rows:
        lab_note = "not measured" if row.lab is None else row.lab.caveat
        unranked = "" if row.subject.ranked else "not ranked"
        note = "; ".join(text for text in (lab_note, unranked, row.subject.note) if text)
        client = (
            client_label(row.subject.client or "", row.lab.client_version)
            if row.lab is not None
            else (row.subject.client or "—")
        )
        lab_speedup = _ratio(row.lab_speedup) + (" (within noise)" if row.lab_within_noise else "")
        lines.append(
            f"| {row.subject.name} | {lab_cell(row.lab, section.metric)} | "
            f"{_number(row.published)} | {lab_speedup} | {_ratio(row.published_speedup)} | "
            f"{client} | {note} |"
        )
    lines += ["", f"Ranking holds: {_verdict(section)}.", ""]
    return lines


def _run_line(run: Document) -> str:
    if "load" in run and "modes" not in run:
        return _load_run_line(run)
    profile = run["profile"]
    return (
        f"- `{run['run_id']}`: profile `{profile['name']}` ({profile['rtt_ms']:g} ms, engine "
        f"{profile['engine']}){_lan_hop(run)}, started {run['started_at']}, lab commit "
        f"{run['lab']['commit'] or 'unknown'}, "
        + ("every mode ok" if run["ok"] else "NOT every mode ok")
    )


def _lan_hop(run: Document) -> str:
    """A relayed job's LAN hop (its ``relay.lan_profile``: the profile is then the WAN hop's,
    docs/relays.md); nothing for a direct job."""
    relay = run.get("relay")
    if not relay:
        return ""
    lan = relay["lan_profile"]
    return (
        f" on the WAN hop to the remote site, `{lan['name']}` ({lan['rtt_ms']:g} ms) on its "
        "LAN hop to the device"
    )


def _load_run_line(run: Document) -> str:
    load = run["load"]
    profile = load["profile"]
    failures = load["totals"]["failures"]
    return (
        f"- `{run['run_id']}`: Locust {load['kind']}, profile `{profile['name']}` (RTT "
        f"verified {profile.get('verified_rtt_ms')} ms, engine {profile['engine']}), command "
        f"`{load.get('command', 'show version')}`, started {load['started_at']}, lab commit "
        f"{run.get('lab_commit') or 'unknown'}, "
        + ("no failed requests" if not failures else f"{failures} failed requests")
    )


def experiment_markdown(experiment: Experiment, runs: Sequence[Document]) -> str:
    """The comparison of one experiment with the runs of its plan among ``runs``."""
    own = [run for run in runs if run.get("plan") == experiment.plan]
    source = experiment.source
    lines = [
        f"## {experiment.title}",
        "",
        f'Source: {source.author}, "{source.title}", <{source.url}> (published: '
        f"{source.published}; accessed {source.accessed}).",
    ]
    lines += [f"Data: <{url}>" for url in source.data]
    lines += ["", f"Lab runs of plan `{experiment.plan}`:"]
    lines += [_run_line(run) for run in own] or ["- none among the runs given: nothing measured"]
    lines += ["", "Published conditions:"]
    lines += [f"- {key}: {value}" for key, value in experiment.conditions.items()]
    lines += ["", "What differs on the lab:"]
    lines += [f"- {difference}" for difference in experiment.differences]
    if experiment.notes:
        lines += ["", "Notes:"]
        lines += [f"- {note}" for note in experiment.notes]
    built = sections(experiment, own)
    ranked = [section for section in built if section.ranking_holds is not None]
    holding = sum(bool(section.ranking_holds) for section in ranked)
    lines += [
        "",
        f"Ranking holds in {holding} of {len(ranked)} compared tables "
        f"({len(built) - len(ranked)} with fewer than two subjects measured).",
        "",
    ]
    for section in built:
        lines += _section_markdown(experiment, section)
    return "\n".join(lines)


def comparison_markdown(
    experiments: Sequence[Experiment], runs: Sequence[Document], command: str, made_at: str
) -> str:
    """The whole comparison.md: how and when it was made, then every experiment."""
    header = [
        "# Published benchmarks, reproduced",
        "",
        f"Made by `{command}` on {made_at} from the results documents of "
        f"{len(runs)} run(s). Figures are the lab's unless marked published; a dash is a "
        "figure the lab did not measure; a lab p50 is followed by its 95 % interval, and two "
        "lab figures whose intervals overlap are within noise, never ordered. Speedups are "
        "against each experiment's reference subject (above 1: better than it).",
        "",
    ]
    return "\n".join(header + [experiment_markdown(e, runs) for e in experiments]) + "\n"
