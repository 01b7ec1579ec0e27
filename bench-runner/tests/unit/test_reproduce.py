"""Published benchmarks reproduced: the cited data, the plans that rerun them, the lab's
figures read from results documents and the comparison tables."""

import json
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench_runner.cli import app
from bench_runner.modes import ALL_MODES, select_modes
from bench_runner.phases import PhaseSummary
from bench_runner.plan import BUILTIN_PLANS, Plan, load_plan, parse_plan
from bench_runner.reproduce.figures import LabFigure, lab_figure, load_documents, metric_value
from bench_runner.reproduce.published import (
    EXPERIMENTS,
    Experiment,
    PublishedError,
    load_experiment,
    parse_experiment,
)
from bench_runner.reproduce.tables import client_label, comparison_markdown, sections, speedup
from bench_runner.results import (
    LabInfo,
    ModeResult,
    ProfileInfo,
    RelayInfo,
    RunnerInfo,
    RunResult,
    TargetInfo,
)
from bench_runner.stats import summarize

STARTED = datetime(2026, 11, 23, 9, 0, 0, tzinfo=UTC)


def mode_entry(
    mode: str,
    client: str,
    samples: list[float],
    *,
    commands: int = 1,
    parameters: dict[str, str | int] | None = None,
    transfer_bytes: int | None = None,
    phases: dict[str, float] | None = None,
    published: bool = True,
) -> ModeResult:
    """A measured mode as the runner records it (the sample_run fixture's fields)."""
    return ModeResult(
        mode=mode,
        transport=mode.split("/")[0],
        client=client,
        client_version="1.0",
        description="test",
        iterations=len(samples),
        warmup=0,
        commands=["show version"] * commands,
        configured_rtt_ms=0.0,
        verified_rtt_ms=0.1,
        rtt_probe=None,
        min_round_trips=1,
        expected_round_trips=1,
        ok=True,
        stats=summarize(samples, 0),
        samples_ms=samples,
        error_messages=[],
        published=published,
        parameters=parameters,
        transfer_bytes=transfer_bytes,
        phases=None if phases is None else PhaseSummary(per_iteration=[phases], p50_ms=phases),
    )


def profile_info(name: str, rtt_ms: float) -> ProfileInfo:
    return ProfileInfo(
        name=name,
        rtt_ms=rtt_ms,
        jitter_ms=0.0,
        loss_pct=0.0,
        rate_mbit=0.0,
        source=None,
        engine="nfq",
        engine_reason=None,
        applied_at=None,
        readback=None,
    )


def run_document(
    run_id: str,
    plan: str,
    profile: str,
    modes: list[ModeResult],
    rtt_ms: float = 0.0,
    *,
    lan: tuple[str, float] | None = None,
) -> dict[str, Any]:
    """A results.json document (schema of results.py) of a run of ``plan``; with ``lan``
    (its profile and RTT), a relayed job's: ``profile`` is then the WAN hop's."""
    run = RunResult(
        run_id=run_id,
        started_at=STARTED,
        finished_at=STARTED,
        lab=LabInfo(commit="abc123", images=None),
        runner=RunnerInfo(version="0.1.0", python="3.11"),
        device={},
        target=TargetInfo(host="device", ssh_port=22, https_port=443),
        profile=profile_info(profile, rtt_ms),
        modes=modes,
        ok=True,
        plan=plan,
        relay=None
        if lan is None
        else RelayInfo(
            jump_host="jumphost",
            jump_port=22,
            headend="headend",
            headend_https_port=443,
            headend_h3_port=443,
            lan_profile=profile_info(*lan),
        ),
    )
    document: dict[str, Any] = json.loads(run.model_dump_json())
    return document


ACCESSED = {"clibench-headend": "2026-11-28"}
"""The day each publication was read, where it is not the seed reproductions' 2026-11-23."""


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_published_data_is_cited_and_complete(name: str) -> None:
    experiment = load_experiment(name)
    assert experiment.source.url.startswith("https://")
    assert experiment.source.accessed == ACCESSED.get(name, "2026-11-23")
    assert experiment.differences
    assert experiment.conditions.keys() >= {"hardware", "device", "latency", "clients"}


RUNNER_EXPERIMENTS = [n for n in EXPERIMENTS if load_experiment(n).runs_on == "bench-runner"]


@pytest.mark.parametrize("name", RUNNER_EXPERIMENTS)
def test_plans_measure_every_published_case(name: str) -> None:
    """Each experiment's built-in plan has every mode and client its subjects need, and
    every profile and parameter value its figures name: a renamed client or a dropped
    profile would otherwise leave a published figure without its lab figure."""
    experiment = load_experiment(name)
    assert experiment.plan in BUILTIN_PLANS, f"plan.BUILTIN_PLANS does not list {experiment.plan}"
    plan = load_plan(experiment.plan)
    pairs = {(mode.name, mode.client) for mode in ALL_MODES}
    for subject in experiment.subjects:
        for spec in experiment.metrics:
            mode = experiment.lab_mode(subject, spec.name)
            if mode is None:
                continue
            assert (mode, subject.client) in pairs
            names = plan.mode_names()
            assert names is None or mode in names
            assert plan.clients == "floor" or subject.client in plan.client_names()
    offered = {
        "profile": set(plan.profiles),
        "framing": set(plan.netconf_framings()),
        "reply_bytes": {str(size) for size in plan.netconf_reply_sizes()},
        "bulk_size": set(plan.tunnel_bulk_sizes),
        "hosts": {str(hosts) for hosts in plan.fleet_host_counts()},
        "repeats": {str(repeats) for repeats in plan.fleet_repeat_counts()},
    }
    for figure in experiment.figures:
        for key, value in figure.case.items():
            if key in experiment.publication_keys:
                continue  # the publication's own condition, matched by every lab run
            assert str(value) in offered[key], (key, value)


def test_the_netconf_plan_makes_100_requests_per_client() -> None:
    plan = load_plan("reproduce-netconf")
    assert plan.iterations == 100
    assert len(plan.commands) == 1
    assert load_experiment("netconf").requests == 100


def test_a_figure_of_an_undeclared_subject_is_refused() -> None:
    text = (
        "experiment: x\ntitle: x\nplan: p\nreference: a\n"
        "source: {author: a, title: t, url: 'https://x', published: '2026',\n"
        "  accessed: '2026-11-23'}\n"
        "conditions: {}\ndifferences: []\nmetrics: [{name: p50_ms}]\n"
        "subjects: [{name: a, mode: ssh/fresh-conn, client: asyncssh}]\n"
        "figures: [{case: {profile: local}, subject: b, metric: p50_ms, value: 1}]\n"
    )
    with pytest.raises(PublishedError, match="undeclared subject 'b'"):
        parse_experiment(text, "test")


def test_metric_values() -> None:
    entry = json.loads(
        mode_entry(
            "netconf/reuse-session",
            "ncclient",
            [10.0, 20.0, 30.0],
            commands=2,
            phases={"connect": 120.0, "rpcs": 5.0},
        ).model_dump_json()
    )
    assert metric_value(entry, "p50_ms", 1) == 20.0
    assert metric_value(entry, "requests_per_s", 1) == pytest.approx(100.0)  # 2 per 20 ms
    assert metric_value(entry, "rpc_total_ms", 100) == pytest.approx(1000.0)  # 10 ms each
    assert metric_value(entry, "setup_ms", 1) == 120.0
    floor = json.loads(
        mode_entry(
            "netconf/fresh-session",
            "asyncssh",
            [9.0],
            phases={"tcp_connect": 1.0, "key_exchange": 2.0, "auth": 3.0, "hello": 0.5, "rpcs": 2},
        ).model_dump_json()
    )
    assert metric_value(floor, "setup_ms", 1) == 6.5
    bulk = json.loads(
        mode_entry("tunnel/bulk", "openssh", [500.0], transfer_bytes=100 << 20).model_dump_json()
    )
    assert metric_value(bulk, "throughput_mib_s", 1) == pytest.approx(200.0)
    assert metric_value(bulk, "setup_ms", 1) is None


def test_lab_figure_matches_profile_and_parameters() -> None:
    runs = [
        run_document(
            "r-local",
            "p",
            "local",
            [
                mode_entry(
                    "netconf/reuse-session", "ncclient", [5.0], parameters={"framing": "1.0"}
                ),
                mode_entry(
                    "netconf/reuse-session", "ncclient", [7.0], parameters={"framing": "1.1"}
                ),
                mode_entry("ssh/pty-fresh", "asyncssh", [1.0], published=False),
            ],
        ),
        run_document(
            "r-regional", "p", "regional", [mode_entry("ssh/pty-fresh", "asyncssh", [99.0])]
        ),
    ]
    figure = lab_figure(runs, {"framing": "1.1"}, "netconf/reuse-session", "ncclient", "p50_ms", 1)
    assert figure is not None
    assert (figure.value, figure.run_id) == (7.0, "r-local")
    # Refused by the RTT gate at local: never a figure; regional's is.
    regional = lab_figure(runs, {"profile": "regional"}, "ssh/pty-fresh", "asyncssh", "p50_ms", 1)
    assert regional is not None
    assert regional.value == 99.0
    assert lab_figure(runs, {"profile": "local"}, "ssh/pty-fresh", "asyncssh", "p50_ms", 1) is None


def test_speedup_direction() -> None:
    assert speedup(10.0, 50.0, "p50_ms") == 5.0  # five times faster than the reference
    assert speedup(300.0, 150.0, "throughput_mib_s") == 2.0
    assert speedup(None, 50.0, "p50_ms") is None


def clibench_runs(pty: float, keep_alive: float, batch: float) -> list[dict[str, Any]]:
    modes = [
        mode_entry("ssh/pty-fresh", "asyncssh", [pty], commands=5),
        mode_entry("https/keep-alive", "httpx", [keep_alive], commands=5),
        mode_entry("https/batch-post", "httpx", [batch], commands=5),
    ]
    return [run_document("rep-clibench-regional", "reproduce-clibench", "regional", modes, 30.0)]


def regional_section(experiment: Experiment, runs: list[dict[str, Any]]) -> Any:
    return next(s for s in sections(experiment, runs) if s.case == {"profile": "regional"})


def test_ranking_holds_and_speedups_beside_the_published() -> None:
    experiment = load_experiment("clibench")
    section = regional_section(experiment, clibench_runs(pty=600.0, keep_alive=200.0, batch=40.0))
    rows = {row.subject.name: row for row in section.rows}
    assert rows["HTTPS batch-post"].lab_speedup == pytest.approx(15.0)
    assert rows["HTTPS batch-post"].published_speedup == pytest.approx(523.559 / 30.971)
    assert rows["SSH fresh-conn"].lab is None  # not in these runs
    assert section.compared == 3
    assert section.ranking_holds is True


def test_a_reversed_pair_breaks_the_ranking() -> None:
    experiment = load_experiment("clibench")
    section = regional_section(experiment, clibench_runs(pty=100.0, keep_alive=200.0, batch=40.0))
    assert section.ranking_holds is False
    assert section.reversals == [("HTTPS keep-alive", "SSH pty-fresh")]


def test_a_subject_measuring_another_operation_is_shown_but_not_ranked() -> None:
    """The lab's ssh/fresh-conn opens a connection per command, clibench's one per iteration:
    slower than pty-fresh in the lab, faster in the publication, and no reversal for it."""
    experiment = load_experiment("clibench")
    modes = [
        mode_entry("ssh/pty-fresh", "asyncssh", [600.0], commands=5),
        mode_entry("https/keep-alive", "httpx", [200.0], commands=5),
        mode_entry("https/batch-post", "httpx", [40.0], commands=5),
        mode_entry("ssh/fresh-conn", "asyncssh", [2000.0], commands=5),
    ]
    run = run_document("rep-clibench-regional", "reproduce-clibench", "regional", modes, 30.0)
    section = regional_section(experiment, [run])
    assert section.compared == 3
    assert section.ranking_holds is True
    text = comparison_markdown([experiment], [run], "make reproduce", "2026-11-23")
    assert (
        "| SSH fresh-conn | 2,000 (interval unknown) | 513.5 | 0.30x | 1.02x | asyncssh 1.0 | "
        "not ranked; lab:" in text
    )


def test_gnmi_subjects_that_time_another_operation_are_not_ranked() -> None:
    """clibench's gNMI fresh (one Get of every path on a new channel) stands beside the lab's
    gnmi/get-multi (that Get on a kept channel), and its batch-set of empty strings beside
    five real writes: shown, never a reversal; reuse-stream and subscribe-once are ranked.
    The gNMI figures exist at local, regional and geo only."""
    experiment = load_experiment("clibench")
    modes = [
        mode_entry("ssh/pty-fresh", "asyncssh", [600.0], commands=5),
        mode_entry("gnmi/get-multi", "grpc-go", [35.0], commands=5),
        mode_entry("gnmi/reuse-conn", "grpc-go", [160.0], commands=5),
        mode_entry("gnmi/set-batch", "grpc-go", [200.0], commands=5),
        mode_entry("gnmi/subscribe-once", "grpc-go", [32.0], commands=5),
    ]
    runs = [run_document("rep-clibench-regional", "reproduce-clibench", "regional", modes, 30.0)]
    built = sections(experiment, runs)
    gnmi = {s.name for s in experiment.subjects if s.mode and s.mode.startswith("gnmi/")}
    assert gnmi == {"gNMI fresh", "gNMI reuse-stream", "gNMI batch-set", "gNMI subscribe-once"}
    for section in built:
        names = {row.subject.name for row in section.rows}
        assert (gnmi <= names) == (section.case["profile"] in ("local", "regional", "geo"))
    section = regional_section(experiment, runs)
    rows = {row.subject.name: row for row in section.rows}
    assert {name for name in gnmi if rows[name].subject.ranked} == {
        "gNMI reuse-stream",
        "gNMI subscribe-once",
    }
    assert rows["gNMI fresh"].lab == LabFigure(35.0, "rep-clibench-regional", "1.0")
    assert rows["gNMI batch-set"].published_speedup == pytest.approx(523.559 / 30.735)
    assert section.compared == 3  # pty-fresh, reuse-stream, subscribe-once
    assert section.ranking_holds is True  # batch-set behind reuse-conn would reverse, ranked
    text = comparison_markdown([experiment], runs, "make reproduce", "2026-11-23")
    assert (
        "| gNMI batch-set | 200.0 (interval unknown) | 30.7 | 3.00x | 17.03x | grpc-go 1.0 | "
        "not ranked; lab: five "
        "descriptions written in one Set; clibench: five empty strings its server does not "
        "write |"
    ) in text


def headend_plan() -> Plan:
    """The head-end experiment's plan as packaged, read without plan.BUILTIN_PLANS (whose
    listing of it test_plans_measure_every_published_case checks)."""
    resource = files("bench_runner").joinpath("plans", "reproduce-clibench-headend.yaml")
    return parse_plan(resource.read_text(encoding="utf-8"), "reproduce-clibench-headend")


def test_the_headend_plan_is_clibenchs_setup() -> None:
    """Every profile clibench published its proxy modes at that the lab has (not leo-remote),
    campus on the LAN hop (clibench's backend leg: 1 ms each way), 20 iterations of five
    ``show version``, and exactly the modes and clients the subjects need: direct SSH in one
    job per profile, the head-end's six modes in another."""
    experiment = load_experiment("clibench-headend")
    plan = headend_plan()
    assert plan.name == experiment.plan == "reproduce-clibench-headend"
    assert plan.lan_profile == "campus"
    assert (plan.iterations, plan.commands) == (20, ["show version"] * 5)
    published = {str(figure.case["profile"]) for figure in experiment.figures}
    assert set(plan.profiles) == published
    assert "leo-remote" not in published
    selection = select_modes(plan.mode_names(), plan.client_names())
    assert not selection.not_applicable
    measured = {(mode.name, mode.client, mode.relayed) for mode in selection.modes}
    assert measured == {
        ("ssh/pty-fresh", "asyncssh", False),
        *((f"proxy/{op}", "httpx", True) for op in ("fresh-ssh", "pooled-ssh", "keep-alive")),
        *((f"proxy-h3/{op}", "quic-go", True) for op in ("fresh-ssh", "pooled-ssh", "keep-alive")),
    }
    assert {(s.mode, s.client) for s in experiment.subjects} == {
        (name, client) for name, client, _ in measured
    }
    reference = next(s for s in experiment.subjects if s.name == experiment.reference)
    assert (reference.mode, reference.ranked) == ("ssh/pty-fresh", False)


HEADEND_LAB = {
    "proxy/fresh-ssh": 210.0,
    "proxy/pooled-ssh": 170.0,
    "proxy/keep-alive": 60.0,
    "proxy-h3/fresh-ssh": 160.0,
    "proxy-h3/pooled-ssh": 120.0,
    "proxy-h3/keep-alive": 58.0,
}


def headend_runs(
    tmp_path: Path, pty: float, relayed: dict[str, float] = HEADEND_LAB
) -> list[dict[str, Any]]:
    """A run of reproduce-clibench-headend at regional as the runner writes it: the direct
    job (``<run-id>-regional``) and the relayed one (``<run-id>-regional-relayed``, regional
    on the WAN hop, campus on the LAN hop), read back from a results directory."""
    direct = [mode_entry("ssh/pty-fresh", "asyncssh", [pty], commands=5)]
    through = [
        mode_entry(mode, "quic-go" if mode.startswith("proxy-h3/") else "httpx", [ms], commands=5)
        for mode, ms in relayed.items()
    ]
    plan = "reproduce-clibench-headend"
    for document in (
        run_document("rep-clibench-headend-regional", plan, "regional", direct, 30.0),
        run_document(
            "rep-clibench-headend-regional-relayed",
            plan,
            "regional",
            through,
            30.0,
            lan=("campus", 2.0),
        ),
    ):
        run_dir = tmp_path / document["run_id"]
        run_dir.mkdir()
        (run_dir / "results.json").write_text(json.dumps(document), encoding="utf-8")
    return load_documents(tmp_path, ["rep-"])


def test_headend_figures_from_the_direct_and_the_relayed_job(tmp_path: Path) -> None:
    """The relayed job's head-end modes and the direct job's SSH stand in one table at the
    profile (the WAN hop's), the speedups taken against clibench's direct SSH fresh-conn,
    which the lab's ssh/pty-fresh stands beside unranked; the run lines say the LAN hop."""
    experiment = load_experiment("clibench-headend")
    runs = headend_runs(tmp_path, pty=600.0)
    assert [run["run_id"] for run in runs] == [
        "rep-clibench-headend-regional",
        "rep-clibench-headend-regional-relayed",
    ]
    section = regional_section(experiment, runs)
    rows = {row.subject.name: row for row in section.rows}
    assert rows["SSH fresh-conn"].lab == LabFigure(600.0, "rep-clibench-headend-regional", "1.0")
    keep_alive = rows["proxy keep-alive"]
    assert keep_alive.lab is not None
    assert keep_alive.lab.run_id == "rep-clibench-headend-regional-relayed"
    assert keep_alive.lab_speedup == pytest.approx(10.0)
    assert keep_alive.published_speedup == pytest.approx(502.6125 / 68.342)
    assert rows["proxy h3-keep-alive"].lab_speedup == pytest.approx(600.0 / 58.0)
    assert section.compared == 7  # the six head-end modes and SSH pty-fresh, not the reference
    assert section.ranking_holds is True
    text = comparison_markdown([experiment], runs, "make reproduce", "2026-11-28")
    assert (
        "- `rep-clibench-headend-regional-relayed`: profile `regional` (30 ms, engine nfq) on "
        "the WAN hop to the remote site, `campus` (2 ms) on its LAN hop to the device, started"
    ) in text
    direct = "- `rep-clibench-headend-regional`: profile `regional` (30 ms, engine nfq), started"
    assert direct in text
    assert "| SSH fresh-conn | 600.0 (interval unknown) | 502.6 | 1.00x | 1.00x | asyncssh" in text
    keep_alive_row = "| proxy keep-alive | 60.0 (interval unknown) | 68.3 | 10.00x | 7.35x | httpx"
    assert keep_alive_row in text


def test_a_headend_mode_behind_direct_ssh_breaks_the_ranking(tmp_path: Path) -> None:
    """Direct SSH is ranked through clibench's pty-fresh (like for like), so a head-end mode
    the lab measures slower than direct SSH is a reversal; the unranked reference is none."""
    experiment = load_experiment("clibench-headend")
    runs = headend_runs(tmp_path, pty=600.0, relayed={**HEADEND_LAB, "proxy/fresh-ssh": 700.0})
    section = regional_section(experiment, runs)
    assert section.ranking_holds is False
    assert section.reversals == [("proxy fresh-ssh", "SSH pty-fresh")]


def test_published_ties_are_not_reversals() -> None:
    """batch-post and multi-cmd are 0.04 % apart in the publication: either lab order holds."""
    experiment = load_experiment("clibench")
    modes = [
        mode_entry("https/batch-post", "httpx", [40.0], commands=5),
        mode_entry("https/multi-cmd", "httpx", [35.0], commands=5),
    ]
    runs = [run_document("r", "reproduce-clibench", "regional", modes, 30.0)]
    assert regional_section(experiment, runs).ranking_holds is True


def test_comparison_markdown() -> None:
    experiments = [load_experiment(name) for name in EXPERIMENTS]
    runs = [
        *clibench_runs(pty=600.0, keep_alive=200.0, batch=40.0),
        run_document(
            "rep-tunnel",
            "reproduce-tunnel",
            "local",
            [
                mode_entry(
                    "tunnel/bulk",
                    client,
                    [ms],
                    parameters={"bulk_size": "10M"},
                    transfer_bytes=10 << 20,
                )
                for client, ms in (("paramiko", 100.0), ("openssh", 50.0))
            ],
        ),
    ]
    text = comparison_markdown(experiments, runs, "bench-runner reproduce-tables rep", "2026-11-23")
    assert text.startswith("# Published benchmarks, reproduced")
    assert "Made by `bench-runner reproduce-tables rep` on 2026-11-23 from the results" in text
    assert "### profile=regional · p50 (ms), lower is better" in text
    assert (
        "| HTTPS batch-post | 40.0 (interval unknown) | 31.0 | 15.00x | 16.90x | httpx 1.0 |"
        in text
    )
    assert "### bulk_size=10M · throughput (MiB/s), higher is better" in text
    assert (
        "| ssh-auto-forward | 100.0 (interval unknown) | 121.7 | 0.50x | 0.74x | paramiko 1.0 |"
        in text
    )
    assert "Ranking holds: yes (2 subjects)." in text
    # The NETCONF plan did not run: said so, and its Go baseline is never given a lab figure.
    assert "- none among the runs given: nothing measured" in text
    assert "| Go: nemith.io/netconf (Do) | — |" in text
    assert "| SSH reuse-conn | — | 306.6 | — | 1.71x | asyncssh | not measured |" in text


def sweep_document(means: dict[tuple[str, int], float], failures: int = 0) -> dict[str, Any]:
    """A Locust sweep's results.json as transport-load writes it (SCHEMA.md, "load")."""
    clients = {
        "ssh-fresh": ("ssh/fresh-conn", "paramiko 5.1.0"),
        "ssh-reuse": ("ssh/reuse-conn", "paramiko 5.1.0"),
        "ssh-fresh-libssh2": ("ssh/fresh-conn", "parallel-ssh 2.16.0.post1"),
        "ssh-reuse-libssh2": ("ssh/reuse-conn", "parallel-ssh 2.16.0.post1"),
    }
    return {
        "run_id": "rep-parallel-ssh",
        "lab_commit": "abc123",
        "plan": "reproduce-parallel-ssh",
        "load": {
            "kind": "sweep",
            "started_at": "2026-11-23T07:00:00+00:00",
            "command": "show payload 26624",
            "profile": {"name": "local", "engine": "nfq", "verified_rtt_ms": 0.25},
            "totals": {"failures": failures},
            "transports": [
                {"transport": key, "mode": mode, "client": client}
                for key, (mode, client) in clients.items()
            ],
            "sweep": {
                "steps": [
                    {
                        "transport": key,
                        "users": users,
                        "requests": 500,
                        "failures": failures if key == "ssh-fresh" else 0,
                        "mean_ms": mean,
                    }
                    for (key, users), mean in means.items()
                ]
            },
        },
    }


def test_load_sweep_figures_against_published_ratios() -> None:
    """Experiment 5 reads a Locust sweep: each step's mean per transport, the publication's
    relative figures as the speedups of libssh2 over paramiko."""
    experiment = load_experiment("parallel-ssh")
    run = sweep_document(
        {
            ("ssh-fresh", 100): 900.0,
            ("ssh-fresh-libssh2", 100): 300.0,
            ("ssh-reuse", 100): 400.0,
            ("ssh-reuse-libssh2", 100): 500.0,
            ("ssh-fresh", 200): 2000.0,
        },
        failures=3,
    )
    built = {(s.case["users"], s.metric): s for s in sections(experiment, [run])}
    session = built[(100, "session_ms")]
    rows = {row.subject.name: row for row in session.rows}
    assert rows["libssh2"].lab is not None
    assert rows["libssh2"].lab.client_version == "2.16.0.post1"
    assert rows["libssh2"].lab_speedup == pytest.approx(3.0)
    assert rows["libssh2"].published_speedup == pytest.approx(2.86, abs=0.005)
    assert rows["paramiko"].lab is not None
    assert rows["paramiko"].lab.caveat == "3 of 500 requests failed"
    assert session.ranking_holds is True
    # libssh2 slower than paramiko on a kept session: against the publication's order
    assert built[(100, "command_ms")].reversals == [("libssh2", "paramiko")]
    # 200 users: paramiko alone measured, nothing to rank
    assert built[(200, "session_ms")].ranking_holds is None
    text = comparison_markdown([experiment], [run], "make reproduce", "2026-11-23")
    assert "| subject | lab [95 % CI] | published (x paramiko's time) |" in text
    assert "| libssh2 | 300.0 | 0.35 | 3.00x | 2.86x | parallel-ssh 2.16.0.post1 |" in text
    assert "- `rep-parallel-ssh`: Locust sweep, profile `local` (RTT verified 0.25 ms" in text
    assert "command `show payload 26624`" in text


def test_reproduce_tables_command_writes_the_comparison(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEVICE_USERNAME", "labops")
    monkeypatch.setenv("DEVICE_PASSWORD", "Secret123x")
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))
    for document in clibench_runs(pty=600.0, keep_alive=200.0, batch=40.0):
        run_dir = tmp_path / document["run_id"]
        run_dir.mkdir()
        (run_dir / "results.json").write_text(json.dumps(document), encoding="utf-8")
    assert [d["run_id"] for d in load_documents(tmp_path, ["rep-"])] == ["rep-clibench-regional"]
    result = CliRunner().invoke(app, ["reproduce-tables", "rep-clibench"])
    assert result.exit_code == 0, result.output
    written = (tmp_path / "rep-clibench" / "comparison.md").read_text(encoding="utf-8")
    assert "`rep-clibench-regional`: profile `regional` (30 ms" in written
    missing = CliRunner().invoke(app, ["reproduce-tables", "nothing-"])
    assert missing.exit_code == 2


def test_a_version_that_names_its_libraries_is_not_prefixed_again() -> None:
    assert client_label("httpx", "0.28.1") == "httpx 0.28.1"
    assert (
        client_label("parallel-ssh-native", "parallel-ssh 2.16.0, ssh2-python 1.2.0")
        == "parallel-ssh 2.16.0, ssh2-python 1.2.0"
    )


def spread_samples(center: float, width: float, count: int = 20) -> list[float]:
    return [center - width + 2 * width * index / (count - 1) for index in range(count)]


def test_lab_figures_within_noise_are_never_a_reversal() -> None:
    """pty-fresh measured faster than keep-alive (against the publication's order), but
    their intervals overlap: within noise, not a reversal; batch-post is told apart."""
    experiment = load_experiment("clibench")
    modes = [
        mode_entry("ssh/pty-fresh", "asyncssh", spread_samples(198.0, 10.0), commands=5),
        mode_entry("https/keep-alive", "httpx", spread_samples(200.0, 10.0), commands=5),
        mode_entry("https/batch-post", "httpx", spread_samples(40.0, 1.0), commands=5),
    ]
    runs = [run_document("rep-clibench-regional", "reproduce-clibench", "regional", modes, 30.0)]
    section = regional_section(experiment, runs)
    assert section.reversals == []
    assert section.within_noise == [("SSH pty-fresh", "HTTPS keep-alive")]
    assert section.ranking_holds is True
    rows = {row.subject.name: row for row in section.rows}
    keep_alive = rows["HTTPS keep-alive"]
    assert keep_alive.lab is not None
    stats = modes[1].stats
    assert keep_alive.lab.interval == (stats.p50_ci_low_ms, stats.p50_ci_high_ms)
    assert keep_alive.lab_within_noise  # of the reference, SSH pty-fresh
    assert not rows["HTTPS batch-post"].lab_within_noise
    text = comparison_markdown([experiment], runs, "make reproduce", "2026-11-23")
    low, high = stats.p50_ci_low_ms, stats.p50_ci_high_ms
    assert f"| HTTPS keep-alive | 200.0 [{low:.1f}\N{EN DASH}{high:.1f}] |" in text
    assert "| 0.99x (within noise) |" in text
    assert (
        "Ranking holds: yes (3 subjects; within noise in the lab, not ordered: "
        "SSH pty-fresh and HTTPS keep-alive)." in text
    )


def test_a_throughput_interval_comes_from_the_p50s() -> None:
    entry = mode_entry(
        "tunnel/bulk", "paramiko", spread_samples(100.0, 5.0), transfer_bytes=10 << 20
    )
    document = json.loads(entry.model_dump_json())
    low, high = entry.stats.p50_ci_low_ms, entry.stats.p50_ci_high_ms
    assert low is not None
    assert high is not None
    figure = lab_figure(
        [{"run_id": "r", "profile": {"name": "local"}, "modes": [document]}],
        {"bulk_size": "10M"} if entry.parameters else {},
        "tunnel/bulk",
        "paramiko",
        "throughput_mib_s",
        1,
    )
    assert figure is not None
    assert figure.interval == pytest.approx((10 / (high / 1000), 10 / (low / 1000)))
    assert figure.interval[0] < figure.value < figure.interval[1]
