"""Configured vs measured RTT through the nfq engine, per profile up to 150 ms.

Runs the engine between two network namespaces (root, iptables-legacy, nfq-delayer needed) and
measures application-level TCP ping (echo over one TCP_NODELAY connection) and TCP connect time.
usage: python3 bench_engine.py [--samples N] [--profiles FILE] [--delayer PATH]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))

from netem_ctl.engines.nfq import NfqEngine  # noqa: E402
from netem_ctl.profiles import load_profiles  # noqa: E402
from netem_ctl.testbed import DEVICE_INTERFACE, Testbed  # noqa: E402

BENCH_PORT = 22
MAX_RTT_MS = 150


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> int:
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--profiles", type=Path, default=here / "profiles.yaml")
    parser.add_argument("--delayer", default=os.environ.get("NETEM_DELAYER", str(here / "delayer" / "nfq-delayer")))
    args = parser.parse_args()

    profiles = [p for p in load_profiles(args.profiles).values() if p.rtt_ms <= MAX_RTT_MS]
    print(f"{'profile':<17}{'rtt':>7}  {'probe':<8}{'p50':>9}{'p99':>9}{'err p50':>9}{'err p99':>9}  (ms)")
    with Testbed() as bed, tempfile.TemporaryDirectory() as run_dir:
        bed.serve(BENCH_PORT)
        engine = NfqEngine(bed.device, DEVICE_INTERFACE, (BENCH_PORT,), args.delayer, Path(run_dir))
        try:
            for profile in profiles:
                engine.apply(profile.impairment())
                for probe in ("echo", "connect"):
                    samples = bed.probe(probe, BENCH_PORT, args.samples)
                    p50, p99 = statistics.median(samples), percentile(samples, 0.99)
                    print(f"{profile.name:<17}{profile.rtt_ms:>7.1f}  {probe:<8}{p50:>9.3f}{p99:>9.3f}"
                          f"{p50 - profile.rtt_ms:>9.3f}{p99 - profile.rtt_ms:>9.3f}", flush=True)
        finally:
            engine.clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
