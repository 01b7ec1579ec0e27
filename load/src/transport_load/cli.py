"""``transport-load``: builds Locust's command line for a bounded, headless run with the
lab's files (Locust's CSV with full history, HTML and JSON under results/<run>/load/) and
runs it. Imports no Locust itself: Locust monkey-patches at import, in its own process."""

import argparse
import os
import shutil
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from transport_load.transports import (
    COMMAND,
    GNMI_INTERVAL_MS,
    MAX_DURATION_S,
    parse_command,
    parse_intervals,
    parse_steps,
    parse_transports,
)

PACKAGE_DIR = Path(__file__).resolve().parent


def duration_seconds(text: str) -> int:
    """``60``, ``90s``, ``2m``, ``1h``; bounded (a load run always stops by itself)."""
    text = text.strip()
    units = {"s": 1, "m": 60, "h": 3600}
    value = int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)
    if not 1 <= value <= MAX_DURATION_S:
        raise argparse.ArgumentTypeError(f"duration must be 1 s .. {MAX_DURATION_S} s, got {text}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="transport-load", description=__doc__)
    p.add_argument("command", choices=["run", "sweep", "master", "worker", "transports"])
    p.add_argument("--transport", default="all", help="comma-separated transports, or all")
    p.add_argument("--users", type=int, default=10)
    p.add_argument("--spawn-rate", type=float, default=10.0)
    p.add_argument("--duration", type=duration_seconds, default=duration_seconds("60"))
    p.add_argument("--steps", default="1,10,50,100,200,500")
    p.add_argument("--step-seconds", type=duration_seconds, default=60)
    p.add_argument(
        "--command", dest="device_command", default=COMMAND, help="what the CLI transports run"
    )
    p.add_argument(
        "--gnmi-interval-ms",
        type=float,
        default=GNMI_INTERVAL_MS,
        help="gnmi-stream: each subscription's sample interval",
    )
    p.add_argument(
        "--gnmi-intervals",
        default="",
        help="sweep: gnmi-stream's steps once per sample interval (ms), e.g. 1000,100,10",
    )
    p.add_argument("--plan", default="", help="the plan the run belongs to (results.json)")
    p.add_argument("--run-id", default="")
    p.add_argument("--targets", default="", help="inventory (results/fleet.yaml)")
    p.add_argument("--results-dir", default=os.environ.get("RESULTS_DIR", "/results"))
    p.add_argument("--workers", type=int, default=0, help="wait for N workers (--master)")
    p.add_argument("--processes", type=int, default=0, help="Locust --processes on this box")
    p.add_argument("--master-host", default="load-master")
    p.add_argument(
        "--ui", choices=["headless", "web"], default="headless", help="web: Locust's web UI"
    )
    return p


def locust_argv(args: argparse.Namespace, run_id: str) -> list[str]:
    transports = parse_transports(args.transport)
    files = Path(args.results_dir) / run_id / "load"
    sweep = args.command == "sweep"
    locustfile = PACKAGE_DIR / ("locustfile_sweep.py" if sweep else "locustfile.py")
    argv = ["locust", "-f", str(locustfile), "--lab-run-id", run_id]
    argv += ["--lab-results-dir", args.results_dir, "--lab-kind", "sweep" if sweep else "load"]
    argv += ["--lab-command", parse_command(args.device_command)]
    argv += ["--lab-gnmi-interval-ms", f"{parse_intervals(str(args.gnmi_interval_ms))[0]:g}"]
    if args.plan:
        argv += ["--lab-plan", args.plan]
    if args.targets:
        argv += ["--lab-targets", args.targets]
    if args.command == "worker":
        return [*argv, "--worker", "--master-host", args.master_host]
    argv += ["--csv", str(files / "locust"), "--csv-full-history"]
    argv += ["--html", str(files / "report.html"), "--json-file", str(files / "stats")]
    argv += ["--only-summary", "--stop-timeout", "10"]
    if sweep:
        steps = parse_steps(args.steps)
        intervals = parse_intervals(args.gnmi_intervals or str(args.gnmi_interval_ms))
        # gnmi-stream's steps run once per sample interval.
        rounds = sum(len(intervals) if t.key == "gnmi-stream" else 1 for t in transports)
        total = rounds * len(steps) * args.step_seconds
        argv += ["--lab-transports", ",".join(t.key for t in transports)]
        argv += ["--lab-steps", ",".join(map(str, steps))]
        argv += ["--lab-step-seconds", str(args.step_seconds)]
        argv += ["--lab-gnmi-intervals", ",".join(f"{ms:g}" for ms in intervals)]
        argv += ["--lab-spawn-rate", str(args.spawn_rate), "-t", f"{total + 30}s"]
    else:
        argv += ["-u", str(args.users), "-r", str(args.spawn_rate), "-t", f"{args.duration}s"]
    if args.ui == "headless":
        argv.append("--headless")
    if args.command == "master" or args.workers:
        argv += ["--master", "--expect-workers", str(max(args.workers, 1))]
    elif args.processes:
        argv += ["--processes", str(args.processes)]
    if not sweep:
        argv += [t.user_class for t in transports]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given and given[0].startswith("-"):
        # Locust's own flags (the Locust Operator's LocustTest passes them to the image's
        # entrypoint): run Locust with them, our locustfile by default.
        if not any(
            arg in ("-f", "--locustfile") or arg.startswith("--locustfile=") for arg in given
        ):
            given = ["-f", str(PACKAGE_DIR / "locustfile.py"), *given]
        os.execv(shutil.which("locust") or "locust", ["locust", *given])
    args = parser().parse_args(given)
    if args.command == "transports":
        for transport in parse_transports("all"):
            print(f"{transport.key:16} {transport.mode:22} {transport.client:17} {transport.what}")
        return 0
    run_id = args.run_id or datetime.now(UTC).strftime(
        f"{'sweep' if args.command == 'sweep' else 'load'}-%Y%m%dT%H%M%SZ"
    )
    try:
        command = locust_argv(args, run_id)
    except ValueError as exc:
        print(f"transport-load: {exc}", file=sys.stderr)
        return 2
    if args.command != "worker":
        (Path(args.results_dir) / run_id / "load").mkdir(parents=True, exist_ok=True)
        print(f"transport-load: run {run_id}: {' '.join(command)}", flush=True)
    executable = shutil.which(command[0]) or command[0]
    os.execv(executable, command)
    return 0  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main())
