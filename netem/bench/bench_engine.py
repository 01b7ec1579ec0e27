"""Benchmark of the nfq engine: configured vs measured RTT per profile, throughput, delayer CPU.

Runs the engine between two network namespaces (root, iptables-legacy, nfq-delayer needed; `make
bench-netem` runs it in the netem test image) and measures, for every profile in the profiles file:
  - application-level TCP ping (64-byte echo over one TCP_NODELAY connection) and TCP connect time,
    p50/p99 against the configured RTT, each with a sleeping client (what a real client sees,
    including its own wake-up after idling through the delay) and a busy-polling one (no wake-up,
    but on a small host it competes with the delayer for CPU). Each only adds to the engine's error,
    so the smaller of the two p50 errors is the tightest upper bound on it, and the p50 target is
    judged on that bound;
  - the delayers' CPU time over those probes (CPU seconds per packet at that low rate);
and at the campus profile single-stream TCP throughput in both directions (median of several runs),
with the delayers' CPU time (% of one core, CPU microseconds per packet and per MB) and packets per
verdict message, next to the same transfers without any engine. Prints a table and writes JSON with
the engine, kernel and lab commit.
usage: python3 bench/bench_engine.py [--budget-s S] [--transfer-mb M] [--repeats N]
                                     [--profiles FILE] [--delayer PATH] [--json-dir DIR]
"""

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from netem_ctl.engines.detect import probe_tc
from netem_ctl.engines.nfq import Delayer, NfqEngine
from netem_ctl.engines.ports import Ports
from netem_ctl.profiles import load_profiles
from testbed import DEVICE_INTERFACE, Testbed

BENCH_PORT = 22
THROUGHPUT_PROFILE = "campus"
THROUGHPUT_TARGET_MBIT = 1000
P50_ERROR_TARGET_MS = 0.3
MIN_SAMPLES, MAX_SAMPLES = 30, 200
PROBES = ("echo", "connect", "echo-spin", "connect-spin")
CLK_TCK = os.sysconf("SC_CLK_TCK")
STATS_REFRESH_S = 1.2  # the delayer rewrites its stats file every second


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def samples_for(rtt_ms: float, budget_s: float) -> int:
    """Probe count per probe kind so one profile takes about `budget_s` (the probe gap is 10 ms)."""
    per_probe_s = budget_s / len(PROBES)
    return max(MIN_SAMPLES, min(MAX_SAMPLES, int(per_probe_s * 1000 / (rtt_ms + 10))))


def cpu_seconds(delayer: Delayer) -> float:
    """User + system CPU time of the delayer process so far (from /proc; same PID namespace)."""
    assert delayer.process is not None
    fields = Path(f"/proc/{delayer.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class DelayerMeter:
    """CPU time, packets and verdict messages of both delayers between start() and stop()."""

    def __init__(self, engine: NfqEngine):
        self.delayers = (engine.toward_device, engine.from_device)

    def _sample(self) -> tuple[float, int, int]:
        time.sleep(STATS_REFRESH_S)  # let the stats files catch up with the last packets
        stats = [d.stats() for d in self.delayers]
        return (
            sum(cpu_seconds(d) for d in self.delayers),
            sum(s.get("received", 0) for s in stats),
            sum(s.get("verdict_messages", 0) for s in stats),
        )

    def start(self) -> None:
        self.start_sample = self._sample()

    def stop(self) -> tuple[float, int, int]:
        cpu, packets, messages = (
            b - a for a, b in zip(self.start_sample, self._sample(), strict=True)
        )
        return cpu, int(packets), int(messages)


def measure_rtt(bed: Testbed, engine: NfqEngine, profile: Any, budget_s: float) -> dict[str, Any]:
    engine.apply(profile.impairment())
    count = samples_for(profile.rtt_ms, budget_s)
    meter = DelayerMeter(engine) if not profile.impairment().is_neutral else None
    if meter:
        meter.start()
    result: dict[str, Any] = {
        "profile": profile.name,
        "configured_rtt_ms": profile.rtt_ms,
        "samples": count,
        "probes": {},
    }
    for probe in PROBES:
        samples = bed.probe(probe, BENCH_PORT, count)
        p50, p99 = statistics.median(samples), percentile(samples, 0.99)
        result["probes"][probe] = {
            "p50_ms": round(p50, 4),
            "p99_ms": round(p99, 4),
            "min_ms": round(min(samples), 4),
            "max_ms": round(max(samples), 4),
            "p50_error_ms": round(p50 - profile.rtt_ms, 4),
            "p99_error_ms": round(p99 - profile.rtt_ms, 4),
        }
    if meter:
        cpu, packets, _ = meter.stop()
        result["delayer_cpu"] = {
            "cpu_s": round(cpu, 3),
            "packets": packets,
            "cpu_us_per_packet": round(cpu / packets * 1e6, 1) if packets else None,
        }
    return result


def add_error_bounds(rtt: list[dict[str, Any]]) -> None:
    """Per probe kind, the smaller p50 error of its sleeping and busy-polling variants."""
    for row in rtt:
        row["p50_error_bound_ms"] = {
            kind: min(
                row["probes"][kind]["p50_error_ms"], row["probes"][f"{kind}-spin"]["p50_error_ms"]
            )
            for kind in ("echo", "connect")
        }


def add_error_beyond_baseline(rtt: list[dict[str, Any]]) -> None:
    """p50 error minus the unimpaired path's own p50 (the probe's cost): what the engine adds."""
    baseline = next((row["probes"] for row in rtt if row["configured_rtt_ms"] == 0), None)
    if baseline is None:
        return
    for row in rtt:
        for probe, m in row["probes"].items():
            m["p50_engine_error_ms"] = round(m["p50_error_ms"] - baseline[probe]["p50_ms"], 4)


def measure_throughput(
    bed: Testbed, engine: NfqEngine | None, size: int, repeats: int
) -> dict[str, Any]:
    """`repeats` transfers of `size` bytes per direction; the run with the median rate is reported,
    all runs are kept (a shared host's load swings single runs). With the engine, its CPU cost."""
    out: dict[str, Any] = {}
    for kind in ("download", "upload"):
        runs = sorted(
            (transfer(bed, engine, kind, size) for _ in range(repeats)),
            key=lambda r: r["mbit_per_s"],
        )
        out[kind] = {**runs[len(runs) // 2], "runs_mbit_per_s": [r["mbit_per_s"] for r in runs]}
    return out


def transfer(bed: Testbed, engine: NfqEngine | None, kind: str, size: int) -> dict[str, Any]:
    """One transfer; with the engine, the delayers' CPU time, packets and verdict messages."""
    meter = DelayerMeter(engine) if engine else None
    if meter:
        meter.start()
    elapsed_s = bed.probe(kind, BENCH_PORT, size)[0] / 1000
    entry: dict[str, Any] = {
        "bytes": size,
        "seconds": round(elapsed_s, 3),
        "mbit_per_s": round(size * 8 / elapsed_s / 1e6, 1),
    }
    if meter:
        cpu, packets, messages = meter.stop()
        entry["delayer_cpu"] = {
            "verdict_messages": messages,
            "packets_per_verdict_message": round(packets / messages, 2) if messages else None,
            "cpu_s": round(cpu, 3),
            "packets": packets,
            "core_pct": round(cpu / elapsed_s * 100, 1),
            "cpu_us_per_packet": round(cpu / packets * 1e6, 2) if packets else None,
            "cpu_ms_per_mb": round(cpu * 1000 / (size / 1e6), 3),
            "packets_per_s": round(packets / elapsed_s),
            "bytes_per_packet": round(size / packets) if packets else None,
        }
    return entry


def lab_commit() -> str:
    return os.environ.get("LAB_COMMIT") or "unknown"


def cpu_columns(c: dict[str, Any]) -> str:
    return (
        f"{c['core_pct']:>11.1f}{c['cpu_us_per_packet']:>8.2f}{c['cpu_ms_per_mb']:>8.3f}"
        f"{c['packets_per_s']:>9}{c['bytes_per_packet']:>8}{c['packets_per_verdict_message']:>13}"
    )


def print_tables(report: dict[str, Any]) -> None:
    print(f"\nnfq engine, kernel {report['kernel']}, commit {report['commit']}")
    print(
        f"{'profile':<17}{'rtt':>6}{'n':>5}  {'probe':<13}{'p50':>9}{'p99':>9}"
        f"{'err p50':>9}{'err p99':>9}{'engine p50':>11}{'cpu us/pkt':>12}"
        "  (ms; engine p50 = err p50 - unimpaired p50)"
    )
    for row in report["rtt"]:
        cpu = row.get("delayer_cpu", {}).get("cpu_us_per_packet")
        for probe, m in row["probes"].items():
            print(
                f"{row['profile']:<17}{row['configured_rtt_ms']:>6g}{row['samples']:>5}"
                f"  {probe:<13}"
                f"{m['p50_ms']:>9.3f}{m['p99_ms']:>9.3f}"
                f"{m['p50_error_ms']:>9.3f}{m['p99_error_ms']:>9.3f}"
                f"{m.get('p50_engine_error_ms', float('nan')):>11.3f}"
                f"{(f'{cpu:.0f}' if cpu is not None and probe == 'echo' else ''):>12}"
            )
    t = report["throughput"]
    print(
        f"\nsingle-stream TCP, {t['bytes'] / 1e6:.0f} MB per transfer, profile {t['profile']}, "
        f"median of {t['repeats']} runs (all runs in the JSON)"
    )
    print(
        f"{'path':<22}{'Mbit/s':>9}{'cpu %core':>11}{'us/pkt':>8}{'ms/MB':>8}{'pkt/s':>9}"
        f"{'B/pkt':>8}{'pkt/verdict':>13}"
    )
    for label, runs in (("no engine", t["baseline"]), (f"nfq {t['profile']}", t["engine"])):
        for kind, r in runs.items():
            c = r.get("delayer_cpu")
            cols = cpu_columns(c) if c else ""
            print(f"{label + ' ' + kind:<22}{r['mbit_per_s']:>9.0f}{cols}")
    print(
        "\np50 error bound (smaller of sleeping and busy-polling), ms: "
        + ", ".join(
            f"{row['profile']} {bound['echo']:.3f}/{bound['connect']:.3f}"
            for row in report["rtt"]
            for bound in [row["p50_error_bound_ms"]]
        )
        + " (echo/connect)"
    )
    targets = {name: "met" if met else "NOT met" for name, met in report["targets"].items()}
    print(
        f"\ntargets: p50 error bound <= {P50_ERROR_TARGET_MS} ms at every profile: "
        f"{targets['p50_error_met']}; >= {THROUGHPUT_TARGET_MBIT} Mbit/s at {t['profile']}: "
        f"{targets['throughput_met']}"
    )


def main() -> int:
    netem_dir = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--budget-s", type=float, default=24.0, help="probe time per profile (bounds samples)"
    )
    parser.add_argument(
        "--transfer-mb", type=int, default=300, help="bytes per throughput transfer, in MB"
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="throughput transfers per direction (median kept)"
    )
    parser.add_argument("--profiles", type=Path, default=netem_dir / "profiles.yaml")
    parser.add_argument(
        "--delayer",
        default=os.environ.get("NETEM_DELAYER", str(netem_dir / "delayer" / "nfq-delayer")),
    )
    parser.add_argument("--json-dir", type=Path, help="write <timestamp>.json here")
    args = parser.parse_args()

    profiles = load_profiles(args.profiles)
    started = datetime.now(UTC)
    size = args.transfer_mb * 1_000_000
    with Testbed() as bed, tempfile.TemporaryDirectory() as run_dir:
        tc_problem = probe_tc(bed.device)
        bed.serve(BENCH_PORT)
        # TCP only: the bench measures the TCP probes; UDP takes the same queues and delayers.
        ports = Ports(tcp=(BENCH_PORT,), udp=())
        engine = NfqEngine(bed.device, DEVICE_INTERFACE, ports, args.delayer, Path(run_dir))
        try:
            baseline = measure_throughput(bed, None, size, args.repeats)
            engine.apply(profiles[THROUGHPUT_PROFILE].impairment())
            through_engine = measure_throughput(bed, engine, size, args.repeats)
            rtt = []
            for profile in profiles.values():
                rtt.append(measure_rtt(bed, engine, profile, args.budget_s))
                print(f"measured {profile.name}", file=sys.stderr, flush=True)
        finally:
            engine.clear()
    add_error_beyond_baseline(rtt)
    add_error_bounds(rtt)
    min_mbit = min(r["mbit_per_s"] for r in through_engine.values())
    report = {
        "schema_version": 1,
        "started_at": started.isoformat(timespec="seconds"),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "engine": "nfq",
        "engine_note": ("tc not benchmarked: " + tc_problem)
        if tc_problem
        else "kernel has netem; nfq forced",
        "kernel": platform.release(),
        "commit": lab_commit(),
        "cpus": os.cpu_count(),
        "delayer": args.delayer,
        "method": {
            "rtt_probes": {
                "echo": "64-byte echo over one TCP_NODELAY connection",
                "connect": "TCP connect (SYN / SYN-ACK)",
                "echo-spin": "echo, client busy-polling",
                "connect-spin": "connect, client busy-polling",
            },
            "busy_polling": (
                "the -spin probes poll a non-blocking socket instead of sleeping in the kernel"
            ),
            "probe_gap_ms": 10,
            "testbed": "two network namespaces joined by a veth pair",
            "throughput": "one TCP connection, Python sendall/recv of 64 KiB blocks",
        },
        "rtt": rtt,
        "throughput": {
            "profile": THROUGHPUT_PROFILE,
            "bytes": size,
            "repeats": args.repeats,
            "baseline": baseline,
            "engine": through_engine,
        },
        "targets": {
            "p50_error_ms": P50_ERROR_TARGET_MS,
            "p50_error_met": all(
                abs(bound) <= P50_ERROR_TARGET_MS
                for row in rtt
                for bound in row["p50_error_bound_ms"].values()
            ),
            "throughput_mbit": THROUGHPUT_TARGET_MBIT,
            "throughput_met": min_mbit >= THROUGHPUT_TARGET_MBIT,
        },
    }
    print_tables(report)
    if args.json_dir:
        args.json_dir.mkdir(parents=True, exist_ok=True)
        path = args.json_dir / f"{started.strftime('%Y%m%dT%H%M%SZ')}.json"
        path.write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
