"""The lab's figure beside a published one, read from a reproduction run's results
documents (results.json as parsed JSON, bench-runner/SCHEMA.md).

A published figure is matched by the first ``modes[]`` entry, in the order the documents
are given, of the subject's lab ``mode`` and ``client`` whose run and parameters fit the
figure's case (``profile`` is the run's ``profile.name``, for a relayed job the WAN hop's:
its LAN hop is the plan's ``lan_profile``; every other key a ``parameters`` value, compared as
text) and that was published with at least one sample.
Its metric is then computed from that entry:

- ``p50_ms``: ``stats.p50_ms``;
- ``throughput_mib_s``: ``transfer_bytes / (stats.p50_ms / 1000) / 2**20``, MiB/s: the
  unit the tunnel publication uses (``throughput_mb_s`` is 10**6 bytes);
- ``requests_per_s``: ``1000 * len(commands) / stats.mean_ms``: one request per command,
  each after the previous one on a kept session, so the mean is what a run of many
  requests averages;
- ``rpc_total_ms``: ``requests * stats.mean_ms / len(commands)``: the time ``requests``
  requests one after another take (``Experiment.requests``);
- ``setup_ms``: the sum of ``phases.p50_ms`` over the connection phases (``SETUP_PHASES``):
  a library's whole ``connect``, or the floor client's TCP connect, key exchange, auth and
  NETCONF hello. None when the entry recorded none of them.

A figure of a p50 carries the p50's 95 % interval (``stats.p50_ci_low_ms`` and
``p50_ci_high_ms``, results.json since schema version 5): ``p50_ms`` its ends,
``throughput_mib_s`` the payload over them (the slow end is the low rate). The other metrics
are means, sums of phase medians or Locust's means and have none; neither have results
written before intervals existed.

A Locust sweep's results document (``load.sweep``, written by transport-load) gives
``session_ms`` and ``command_ms``: the ``mean_ms`` of the step whose ``users`` is the case's
and whose transport measures the subject's mode with its client (``load.transports``: mode,
and client as "<name> <version>"). The metric's mode says which operation: a new session
per operation, or one command on a kept session. A step with failed requests still gives
its figure, with the failures said beside it.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_runner import store
from bench_runner.reproduce.published import CaseValue, Metric

HIGHER_IS_BETTER: frozenset[Metric] = frozenset({"throughput_mib_s", "requests_per_s"})
LOAD_METRICS: frozenset[Metric] = frozenset({"session_ms", "command_ms"})
INTERVAL_METRICS: frozenset[Metric] = frozenset({"p50_ms", "throughput_mib_s"})
"""The metrics of a p50, which have an interval in results written since schema version 5."""
SETUP_PHASES = ("tcp_connect", "key_exchange", "auth", "connect", "hello")
MIB = 1 << 20

Document = Mapping[str, Any]


@dataclass(frozen=True)
class LabFigure:
    value: float
    run_id: str
    client_version: str
    caveat: str = ""
    interval: tuple[float, float] | None = None
    """The figure's 95 % interval (module docstring); None where it has none."""


def load_documents(results_dir: Path, prefixes: Sequence[str]) -> list[dict[str, Any]]:
    """The results documents of every run under ``results_dir`` whose id starts with one
    of ``prefixes`` (a plan over several profiles writes ``<run-id>-<profile>``), oldest
    first (store.py): the runner's and the load runs' own."""
    return [run.document for run in store.matching(results_dir, prefixes)]


def _fits(run: Document, entry: Mapping[str, Any], case: Mapping[str, CaseValue]) -> bool:
    parameters = entry.get("parameters") or {}
    for key, wanted in case.items():
        actual = run["profile"]["name"] if key == "profile" else parameters.get(key)
        if actual is None or str(actual) != str(wanted):
            return False
    return True


def metric_value(entry: Mapping[str, Any], metric: Metric, requests: int) -> float | None:
    """``metric`` of one ``modes[]`` entry, as the module docstring defines it."""
    stats = entry["stats"]
    commands = len(entry["commands"]) or 1
    if metric == "p50_ms":
        return float(stats["p50_ms"])
    if metric == "throughput_mib_s":
        transfer = entry.get("transfer_bytes")
        return transfer / (stats["p50_ms"] / 1000) / MIB if transfer and stats["p50_ms"] else None
    if metric == "requests_per_s":
        return 1000 * commands / stats["mean_ms"] if stats["mean_ms"] else None
    if metric == "rpc_total_ms":
        return float(requests * stats["mean_ms"] / commands)
    phases = (entry.get("phases") or {}).get("p50_ms") or {}
    setup = [phases[name] for name in SETUP_PHASES if name in phases]
    return float(sum(setup)) if setup else None


def metric_interval(entry: Mapping[str, Any], metric: Metric) -> tuple[float, float] | None:
    """The 95 % interval of ``metric`` of one ``modes[]`` entry (module docstring)."""
    stats = entry["stats"]
    low, high = stats.get("p50_ci_low_ms"), stats.get("p50_ci_high_ms")
    if low is None or high is None:
        return None
    if metric == "p50_ms":
        return float(low), float(high)
    transfer = entry.get("transfer_bytes")
    if metric == "throughput_mib_s" and transfer and low > 0:
        return transfer / (high / 1000) / MIB, transfer / (low / 1000) / MIB
    return None


def lab_figure(
    runs: Sequence[Document],
    case: Mapping[str, CaseValue],
    mode: str,
    client: str,
    metric: Metric,
    requests: int,
) -> LabFigure | None:
    """The lab's figure of ``mode`` with ``client`` in ``case`` (module docstring); None
    when no run measured it."""
    if metric in LOAD_METRICS:
        return next(
            (f for run in runs if (f := load_step_figure(run, case, mode, client)) is not None),
            None,
        )
    for run in runs:
        for entry in run.get("modes", []):
            if (
                entry["mode"] == mode
                and entry["client"] == client
                and entry.get("published", True)
                and entry["stats"]["n"] > 0
                and _fits(run, entry, case)
            ):
                value = metric_value(entry, metric, requests)
                if value is not None:
                    return LabFigure(
                        value,
                        run["run_id"],
                        entry["client_version"],
                        interval=metric_interval(entry, metric),
                    )
    return None


def load_step_figure(
    run: Document, case: Mapping[str, CaseValue], mode: str, client: str
) -> LabFigure | None:
    """The mean of the sweep step of ``case`` (``users``, and ``profile`` if named) whose
    transport ran ``mode`` with ``client``; None without one that completed a request."""
    load = run.get("load") or {}
    steps = (load.get("sweep") or {}).get("steps") or []
    if "profile" in case and str(load.get("profile", {}).get("name")) != str(case["profile"]):
        return None
    versions = {
        row["transport"]: row["client"].partition(" ")[2]
        for row in load.get("transports", [])
        if row["mode"] == mode and row["client"].partition(" ")[0] == client
    }
    for step in steps:
        if (
            step["transport"] in versions
            and str(step["users"]) == str(case.get("users"))
            and step["requests"] > step["failures"]
        ):
            caveat = (
                f"{step['failures']} of {step['requests']} requests failed"
                if step["failures"]
                else ""
            )
            return LabFigure(
                float(step["mean_ms"]), run["run_id"], versions[step["transport"]], caveat
            )
    return None
