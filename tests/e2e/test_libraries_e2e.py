"""Every client library the runner supports, against the real lab at `local` (the smoke plan)."""

from __future__ import annotations

import json
import subprocess
import time

from conftest import RESULTS_DIR

LIBRARIES = {"asyncssh", "httpx", "paramiko", "openssh", "netmiko", "scrapli", "requests"}


def test_smoke_plan_runs_every_library() -> None:
    run_id = f"e2e-smoke-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    proc = subprocess.run(["bench-runner", "run", "--plan", "smoke", "--run-id", run_id],
                          capture_output=True, text=True, timeout=1200)
    print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n")
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((RESULTS_DIR / run_id / "results.json").read_text())
    assert results["profile"]["name"] == "local"
    assert LIBRARIES <= {m["client"] for m in results["modes"]}
    for mode in results["modes"]:
        assert mode["ok"] and mode["stats"]["errors"] == 0, (mode["mode"], mode["client"], mode["error_messages"])
        assert mode["client_version"] not in ("", "unknown"), (mode["mode"], mode["client"])
    for skipped in results["not_applicable"]:
        assert skipped["reason"], skipped
