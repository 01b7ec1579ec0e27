"""The impairment table on scripted results documents: order, context, the model beside the
measured tails, the share of iterations that met a retransmission, and dashes with footnotes
where the results have nothing to say (QUIC, older results, too few samples)."""

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench_runner import loss_model
from bench_runner.cli import app
from bench_runner.impairment_table import (
    DASH,
    impairment_markdown,
    min_samples,
    recounted_model,
    share_interval,
    verdict,
)
from bench_runner.plan import load_plan
from bench_runner.stats import summarize
from bench_runner.wire.model import WireIteration

COMMAND = "bench-runner impairment-table impairment-t"
MADE_AT = "2026-11-28 12:00 UTC"
WIRE = {
    "packets_out": 9, "packets_in": 9, "segments_out": 9, "segments_in": 9,
    "bytes_out": 900, "bytes_in": 2000, "ip_bytes_out": 1260, "ip_bytes_in": 2360,
}  # fmt: skip
"""What every iteration's wire counts carry besides the loss counters."""
COUNTERS = (
    "data_segments_out",
    "data_segments_in",
    "retransmits_out",
    "retransmits_in",
    "timeouts",
    "syn_retries",
    "spurious",
    "reordered_in",
)


def _samples(count: int, base: float, slow: int = 0, extra: float = 230.0) -> list[float]:
    """``count`` iterations near ``base``, the last ``slow`` of them ``extra`` ms longer (the
    ones that met a loss)."""
    return [
        base + index % 10 * 0.1 + (extra if index >= count - slow else 0.0)
        for index in range(count)
    ]


def _entry(
    mode: str,
    samples: list[float],
    *,
    recovered: int = 0,
    timeouts: int = 0,
    model: dict[str, float] | None = None,
    transport: str | None = None,
    client_counts: bool = False,
) -> dict[str, Any]:
    """A mode as results.json has it, with issue 28's fields: the last ``recovered``
    iterations met a retransmission (``timeouts`` of them by a timer). QUIC's counters are
    null unless ``client_counts`` (its client counted them)."""
    count = len(samples)
    quic = (transport or mode.split("/")[0]) == "h3"
    blind = quic and not client_counts
    per_iteration = []
    splits = []
    for index in range(count):
        met = index >= count - recovered
        counters: dict[str, int | None] = dict.fromkeys(COUNTERS, 0)
        counters |= {"data_segments_out": 7, "data_segments_in": 7}
        counters["retransmits_out"] = int(met)
        counters["timeouts"] = int(index >= count - timeouts)
        if blind:
            counters = dict.fromkeys(COUNTERS)
        per_iteration.append({**WIRE, "connects": 1, "round_trips": 5, **counters})
        splits.append({"network_ms": 150.0, "recovery_ms": 231.4 if met and not quic else 0.0})
    return {
        "mode": mode,
        "transport": transport or mode.split("/")[0],
        "client": "quic-go" if quic else "httpx",
        "client_version": "v0.65.0" if quic else "0.28.1",
        "series": f"{mode} \u00b7 {'quic-go v0.65.0' if quic else 'httpx 0.28.1'}",
        "iterations": count,
        "warmup": 1,
        "commands": ["show version", "show clock"],
        "verified_rtt_ms": 30.4,
        "connections_per_iteration": 0,
        "commands_per_request": 1,
        "ok": True,
        "published": True,
        "samples_ms": samples,
        "stats": json.loads(summarize(samples, errors=0).model_dump_json()),
        "wire": {
            "available": True,
            "per_iteration": per_iteration,
            "recovered_iterations": None if blind else recovered,
        },
        "time_split": {
            "rtt_ms": 30.4,
            "per_iteration": splits,
            "p50_ms": {"network": 150.0, "recovery": 0.0},
        },
        "loss_model": model,
    }


def _run(run_id: str, profile: str, rtt: float, loss: float, modes: list[Any]) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "started_at": "2026-11-28T10:00:00+00:00",
        "finished_at": "2026-11-28T10:30:00+00:00",
        "plan": "impairment",
        "lab": {"commit": "abc1234"},
        "profile": {"name": profile, "rtt_ms": rtt, "loss_pct": loss, "engine": "nfq"},
        "device": {"openssh_version": "OpenSSH_10.0p2", "nginx_version": "nginx/1.26.3"},
        "modes": modes,
    }


def stored_model(run: dict[str, Any], entry: dict[str, Any]) -> Any:
    """The model results.json carries: the tests place it against the measured tails."""
    return entry.get("loss_model")


def _model(p95: float, p99: float, p_meet: float = 0.13) -> dict[str, float]:
    return {"loss_pct": 1.0, "p_meet": p_meet, "p95_ms": p95, "p99_ms": p99}


def _rows(page: str, mode: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in page.splitlines()
        if line.startswith(f"| `{mode}` |")
    ]


def _marker(page: str, words: str) -> str:
    """The dash and footnote number of the footnote that says ``words``."""
    line = next(line for line in page.splitlines() if line.startswith("- ") and words in line)
    return DASH + line.split(" ")[1]


def test_a_row_per_mode_and_profile_least_loss_first_with_the_context() -> None:
    lossy = _run(
        "impairment-t-regional-loss-1",
        "regional-loss-1",
        30,
        1.0,
        [_entry("https/keep-alive", _samples(200, 170.0, slow=25), recovered=25)],
    )
    clean = _run(
        "impairment-t-regional",
        "regional",
        30,
        0.0,
        [_entry("https/keep-alive", _samples(200, 170.0))],
    )
    far = _run(
        "impairment-t-continental",
        "continental",
        70,
        0.0,
        [_entry("https/keep-alive", _samples(200, 380.0))],
    )
    page = impairment_markdown([far, lossy, clean], COMMAND, MADE_AT, stored_model)
    assert f"Made by `{COMMAND}` on {MADE_AT}." in page
    assert page.index("## `regional` (30 ms RTT)") < page.index("## `continental` (70 ms RTT)")
    rows = _rows(page, "https/keep-alive")
    assert [row[4] for row in rows] == ["`regional`", "`regional-loss-1`", "`continental`"]
    assert rows[0][1:7] == ["https", "httpx 0.28.1", "0 / 1", "`regional`", "0 %", "200 (0)"]
    assert rows[1][5] == "1 %"
    assert (
        "- runs: impairment-t-regional, impairment-t-regional-loss-1 (plan impairment, "
        "lab commit abc1234, netem engine nfq)" in page
    )
    assert "- verified RTT (median of the modes' gates): `regional` 30.4 ms" in page
    assert "- iterations: 200 measured after 1 warm-up; 2 commands an iteration" in page
    assert "- clients: httpx 0.28.1" in page
    assert "- machine: not recorded in results.json" in page
    # No loss, no model: said once, in a footnote, never a zero.
    no_loss = _marker(page, "No loss in this profile")
    assert rows[0][9] == rows[0][10] == rows[0][15] == no_loss


def test_the_measured_tail_is_judged_against_the_model_only_by_its_interval() -> None:
    samples = _samples(200, 170.0, slow=25)
    stats = summarize(samples, errors=0)
    assert stats.p95_ci_low_ms is not None
    assert stats.p95_ci_high_ms is not None
    inside = (stats.p95_ci_low_ms + stats.p95_ci_high_ms) / 2
    runs = [
        _run(
            f"impairment-t-{name}",
            f"regional-loss-{name}",
            30,
            1.0,
            [_entry("https/keep-alive", samples, recovered=25, model=_model(p95, 400.0))],
        )
        for name, p95 in (("a", inside), ("b", 171.0), ("c", 900.0))
    ]
    page = impairment_markdown(runs, COMMAND, MADE_AT, stored_model)
    rows = _rows(page, "https/keep-alive")
    assert [row[10] for row in rows] == ["follows", "above", "below"]
    low, high = f"{stats.p95_ci_low_ms:,.1f}", f"{stats.p95_ci_high_ms:,.1f}"
    assert rows[0][8] == f"{stats.p95_ms:,.1f} [{low}, {high}]"
    assert rows[1][9] == "171.0"
    assert "p95: follows in 1, above in 1, below in 1 of 3 rows judged" in page
    assert verdict(5.0, (4.0, 6.0)) == "follows"
    assert verdict(4.0, (4.0, 6.0)) == "follows"  # an end is inside
    assert verdict(3.9, (4.0, 6.0)) == "above"
    assert verdict(6.1, (4.0, 6.0)) == "below"


def test_p99_without_its_interval_is_shown_but_never_judged() -> None:
    """200 iterations give p95 an interval; p99 needs 368 (stats.py): no verdict."""
    run = _run(
        "impairment-t-regional-loss-1",
        "regional-loss-1",
        30,
        1.0,
        [
            _entry(
                "https/keep-alive",
                _samples(200, 170.0, slow=25),
                recovered=25,
                model=_model(400.0, 400.0),
            )
        ],
    )
    page = impairment_markdown([run], COMMAND, MADE_AT, stored_model)
    (row,) = _rows(page, "https/keep-alive")
    too_few = _marker(page, "p99's 95 % interval needs at least 368")
    assert row[11].endswith(f"[{too_few}]")
    assert row[12] == "400.0"
    assert row[13] == too_few
    assert "p99: not judged" in page


def test_the_share_that_met_a_retransmission_beside_the_model_with_recovery_and_timeouts() -> None:
    run = _run(
        "impairment-t-regional-loss-1",
        "regional-loss-1",
        30,
        1.0,
        [
            _entry(
                "https/keep-alive",
                _samples(200, 170.0, slow=25),
                recovered=25,
                timeouts=5,
                model=_model(400.0, 400.0, p_meet=0.1304),
            )
        ],
    )
    page = impairment_markdown([run], COMMAND, MADE_AT, stored_model)
    (row,) = _rows(page, "https/keep-alive")
    low, high = share_interval(25, 200)
    assert row[14] == f"12.5 % [{low * 100:.1f} %, {high * 100:.1f} %]"
    assert row[15] == "13.0 %"
    assert row[16] == "0.0 / 231.4"  # the p50 over all, and over the iterations with some
    assert row[17] == "2.5"  # 5 timeouts in 200 iterations


def test_the_share_interval_is_the_exact_binomial_one() -> None:
    """Clopper-Pearson's closed forms at the edges, and a tabulated middle value."""
    assert share_interval(0, 10) == (0.0, pytest.approx(1 - 0.025 ** (1 / 10)))
    assert share_interval(10, 10) == (pytest.approx(0.025 ** (1 / 10)), 1.0)
    low, high = share_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.1871, 0.8129)
    with pytest.raises(ValueError, match="no share"):
        share_interval(3, 2)


def test_quic_rows_have_tails_and_dashes_where_the_capture_is_blind() -> None:
    run = _run(
        "impairment-t-regional-loss-1",
        "regional-loss-1",
        30,
        1.0,
        [_entry("h3/keep-alive", _samples(200, 156.0, slow=20))],
    )
    page = impairment_markdown([run], COMMAND, MADE_AT, stored_model)
    (row,) = _rows(page, "h3/keep-alive")
    quic = _marker(page, "HTTP/3 (QUIC)")
    assert row[7].startswith("156.")  # the tails are measured
    assert row[9] == row[10] == row[13] == quic  # no model
    assert row[14] == row[15] == row[17] == quic  # no counts
    assert row[16] == _marker(page, "no time is split out")
    assert "quic-go v0.65.0" in page


def test_quic_rows_show_what_their_client_counted_with_its_note() -> None:
    run = _run(
        "impairment-t-regional-loss-1",
        "regional-loss-1",
        30,
        1.0,
        [
            _entry(
                "h3/fresh-conn",
                _samples(200, 80.0, slow=30),
                recovered=30,
                timeouts=10,
                model=_model(400.0, 420.0, p_meet=0.14),
                client_counts=True,
            )
        ],
    )
    page = impairment_markdown([run], COMMAND, MADE_AT, stored_model)
    (row,) = _rows(page, "h3/fresh-conn")
    counted = _marker(page, "counted by the client library, quic-go")[len(DASH) :]
    assert row[14].startswith("15.0 % [")
    assert row[14].endswith(counted)
    assert row[15] == "14.0 %"
    assert row[17] == "5.0" + counted
    assert row[16] == _marker(page, "no time is split out")


def test_results_from_before_the_loss_fields_render_with_dashes() -> None:
    """An older results.json: no loss counters, recovery part, model, shape or intervals."""
    entry = _entry("ssh/reuse-conn", _samples(20, 360.0), transport="ssh")
    for key in ("loss_model", "connections_per_iteration", "commands_per_request", "series"):
        del entry[key]
    del entry["wire"]["recovered_iterations"]
    entry["wire"]["per_iteration"] = [{"connects": 0, "round_trips": 10}] * 20
    entry["time_split"]["p50_ms"] = {"network": 300.0}
    entry["stats"] = {k: v for k, v in entry["stats"].items() if "_ci_" not in k}
    run = _run("impairment-t-regional-loss-1", "regional-loss-1", 30, 1.0, [entry])
    page = impairment_markdown([run], COMMAND, MADE_AT, stored_model)
    (row,) = _rows(page, "ssh/reuse-conn")
    older = _marker(page, "Not in these results")
    assert row[3] == older
    assert row[7].endswith(f"[{older}]")
    assert row[9] == older
    assert row[14] == row[16] == row[17] == older
    assert "p95's 95 % interval needs at least 72" in page  # 20 samples


def test_a_mode_without_samples_or_published_figures_makes_no_number() -> None:
    failed = _entry("ssh/fresh-conn", [], transport="ssh")
    refused = _entry("https/fresh-conn", _samples(200, 511.0))
    refused["published"] = False
    run = _run("impairment-t-regional-loss-2", "regional-loss-2", 30, 2.0, [failed, refused])
    page = impairment_markdown([run], COMMAND, MADE_AT, stored_model)
    (empty,) = _rows(page, "ssh/fresh-conn")
    none = _marker(page, "No successful iteration")
    assert empty[6] == "0 (0)"
    assert empty[7] == empty[8] == empty[14] == none
    (gated,) = _rows(page, "https/fresh-conn")
    gate = _marker(page, "RTT gate")
    assert gated[7] == gated[14] == gated[16] == gated[17] == gate


def test_the_sample_counts_the_intervals_need() -> None:
    """The counts docs/precision.md and the impairment plan's comment give."""
    assert (min_samples(0.5), min_samples(0.95), min_samples(0.99)) == (6, 72, 368)
    plan = load_plan("impairment")
    assert plan.iterations is not None
    assert plan.iterations >= min_samples(0.95)


def test_the_command_writes_the_page_of_the_runs_a_prefix_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEVICE_USERNAME", "labops")
    monkeypatch.setenv("DEVICE_PASSWORD", "Secret123x")
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))
    for run in (
        _run(
            "impairment-t-regional",
            "regional",
            30,
            0.0,
            [_entry("https/batch-post", _samples(200, 37.0))],
        ),
        _run(
            "impairment-t-regional-loss-1",
            "regional-loss-1",
            30,
            1.0,
            [_entry("https/batch-post", _samples(200, 37.0, slow=4), recovered=4)],
        ),
    ):
        (tmp_path / run["run_id"]).mkdir()
        (tmp_path / run["run_id"] / "results.json").write_text(json.dumps(run))
    result = CliRunner().invoke(app, ["impairment-table", "impairment-t"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "impairment-t" / "impairment.md").read_text(encoding="utf-8")
    assert f"Made by `{COMMAND}`" in page
    assert len(_rows(page, "https/batch-post")) == 2
    assert "impairment table of 2 run(s) written to" in result.output
    assert CliRunner().invoke(app, ["impairment-table", "nothing-"]).exit_code == 2


def test_the_model_beside_a_row_is_recounted_from_its_iterations() -> None:
    """By default the page applies this commit's model to the recorded counts, whatever model
    the run's own commit stored."""
    entry = _entry(
        "https/keep-alive",
        _samples(200, 170.0, slow=25),
        recovered=25,
        model=_model(1.0, 2.0),
    )
    run = _run("impairment-t-regional-loss-1", "regional-loss-1", 30, 1.0, [entry])
    expected = loss_model.estimate(
        1.0,
        30.4,
        [
            (wall_ms, WireIteration.model_validate(count))
            for wall_ms, count in zip(
                entry["samples_ms"], entry["wire"]["per_iteration"], strict=True
            )
        ],
    )
    assert expected is not None
    assert recounted_model(run, entry) == expected.model_dump()
    (row,) = _rows(impairment_markdown([run], COMMAND, MADE_AT), "https/keep-alive")
    assert row[9] == f"{expected.p95_ms:,.1f}"
    blind = _entry("h3/keep-alive", _samples(200, 156.0))
    assert recounted_model(run, blind) is None
