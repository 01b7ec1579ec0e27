"""The report's bad-links section (docs/bad-links.md): for each run under loss, every mode's
tail with its 95 % intervals beside the loss model (loss_model.py), how often an iteration met
a loss, what recovery cost, and whether the measured p95 and p99 follow the model.

A run is under loss when its profile loses packets or a mode carries a loss model. Results
written before the loss counters (schema version 6) have neither: no section, and a figure a
mode lacks (QUIC's recovery time, which the capture cannot place; its counters, from a client
that counts none) is a dash, never a zero. The words
and the share's interval are the impairment table's (impairment_table.py), so the two agree.
"""

from dataclasses import dataclass

from bench_runner.html_report.intervals import Shown, interval_of
from bench_runner.html_report.runs import Document, Run, is_stream
from bench_runner.impairment_table import QUIC_TRANSPORT, share_interval, verdict
from bench_runner.stats import percentile

QUANTILES = ("p95", "p99")
NOT_JUDGED = "not judged: no interval"


def under_loss(run: Run) -> bool:
    """The run's profile loses packets, or one of its modes has a loss model."""
    return float(run.document["profile"].get("loss_pct") or 0.0) > 0 or any(
        mode.get("loss_model") for mode in run.modes
    )


@dataclass(frozen=True)
class LossRow:
    """One mode of a run under loss, as the section shows it."""

    mode: Document
    recovered: int | None
    """Successful iterations in which a segment was sent again; None where not counted."""
    counted: int
    met_pct: float | None
    met_interval: Shown
    """The share's exact 95 % interval, in percent."""
    p_meet_pct: float | None
    recovery_p50_ms: float | None
    recovered_recovery_p50_ms: float | None
    """The recovery part's p50 over the iterations that had some."""
    timeouts_per_100: float | None
    model_ms: dict[str, float | None]
    """The model's p95 and p99."""
    judged: dict[str, str | None]
    """The measured p95 and p99 against the model's: follows, above, below, not judged
    without an interval; None without a model value."""


def _met(wire: Document) -> tuple[int | None, int, float | None, Shown]:
    recovered = wire.get("recovered_iterations")
    counted = len(wire.get("per_iteration") or [])
    if recovered is None or counted == 0:
        return None, counted, None, Shown("none")
    low, high = share_interval(int(recovered), counted)
    return int(recovered), counted, 100 * recovered / counted, Shown("known", 100 * low, 100 * high)


def _recovery(mode: Document) -> tuple[float | None, float | None]:
    """The recovery part's p50 over every iteration, and over those that had some; None
    where the capture could not tell a retransmission, and for QUIC, whose datagrams sent
    again it cannot tell (its recovery is not 0: unseen)."""
    if mode.get("transport") == QUIC_TRANSPORT:
        return None, None
    if (mode.get("wire") or {}).get("recovered_iterations") is None:
        return None, None
    split = mode.get("time_split") or {}
    overall = (split.get("p50_ms") or {}).get("recovery")
    if overall is None:
        return None, None
    spent = [
        float(item["recovery_ms"])
        for item in split.get("per_iteration") or []
        if (item.get("recovery_ms") or 0) > 0
    ]
    return float(overall), percentile(spent, 0.5) if spent else None


def _timeouts_per_100(wire: Document) -> float | None:
    counts = [item.get("timeouts") for item in wire.get("per_iteration") or []]
    if not counts or any(count is None for count in counts):
        return None
    return 100 * sum(int(count) for count in counts) / len(counts)


def _judged(mode: Document, model: Document, quantile: str) -> str | None:
    value = model.get(f"{quantile}_ms")
    if value is None:
        return None
    bounds = interval_of(mode["stats"], quantile).bounds
    return NOT_JUDGED if bounds is None else verdict(float(value), bounds)


def loss_row(mode: Document) -> LossRow:
    wire = mode.get("wire") or {}
    model = mode.get("loss_model") or {}
    recovered, counted, met_pct, met_interval = _met(wire)
    p_meet = model.get("p_meet")
    recovery_p50, recovered_p50 = _recovery(mode)
    return LossRow(
        mode=mode,
        recovered=recovered,
        counted=counted,
        met_pct=met_pct,
        met_interval=met_interval,
        p_meet_pct=None if p_meet is None else 100 * float(p_meet),
        recovery_p50_ms=recovery_p50,
        recovered_recovery_p50_ms=recovered_p50,
        timeouts_per_100=_timeouts_per_100(wire),
        model_ms={quantile: model.get(f"{quantile}_ms") for quantile in QUANTILES},
        judged={quantile: _judged(mode, model, quantile) for quantile in QUANTILES},
    )


def loss_rows(run: Run) -> list[LossRow]:
    """The measured request modes of ``run`` (a stream's figures are update delays), in the
    run's order."""
    return [
        loss_row(mode)
        for mode in run.modes
        if mode.get("published", True)
        and (mode.get("stats") or {}).get("p50_ms") is not None
        and not is_stream(mode)
    ]
