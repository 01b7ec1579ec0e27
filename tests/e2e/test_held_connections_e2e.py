"""Held connections (docs/fleet-jobs.md, "Held connections") on the test lab at `local`: for
each transport, 1 then 20 connections held at once with their floor client's code (pygnmi
for gNMI), every one opened and carrying its operations, one established socket per held
connection, the figures' order (p50 <= p95, the interval around its median), every
operation counted, memory per connection on the runner present and not negative, and the
step's point in InfluxDB. No wall-clock bound: the lab's machine is shared."""

import json
import subprocess
from typing import Any

import pytest

from conftest import RESULTS_DIR, _stamp, influx_query

COUNTS = (1, 20)
OPERATIONS = 3


def _hold(transport: str) -> dict[str, Any]:
    run_id = f"e2e-hold-{transport}-{_stamp()}"
    proc = subprocess.run(
        ["bench-runner", "hold", "--transport", transport, "--run-id", run_id,
         "--connections", ",".join(map(str, COUNTS)),
         "--operations-per-connection", str(OPERATIONS), "--profile", "local"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    document: dict[str, Any] = json.loads((RESULTS_DIR / run_id / "hold.json").read_text())
    assert document["ok"], document["error"]
    assert document["limit"] is None
    assert document["rtt"]["check"]["passed"], document["rtt"]
    return document


@pytest.mark.parametrize("transport", ["ssh", "https", "netconf", "gnmi"])
def test_every_connection_is_held_and_carries_its_operations(transport: str) -> None:
    document = _hold(transport)
    assert document["client_version"], document["client"]
    assert [step["connections"] for step in document["steps"]] == list(COUNTS)
    for step in document["steps"]:
        count = step["connections"]
        assert step["ok"], step["error"]
        assert step["opened"] == count
        assert step["sockets"] == count, "one TCP connection per held connection"
        setup, operations = step["setup"], step["operations"]
        assert setup["n"] == count
        assert setup["errors"] == 0
        assert 0 < setup["p50_ms"] <= setup["p95_ms"]
        assert operations["n"] == count * OPERATIONS
        assert operations["errors"] == 0
        assert 0 < operations["p50_ms"] <= operations["p95_ms"]
        if operations["p50_ci_low_ms"] is not None:
            assert operations["p50_ci_low_ms"] <= operations["p50_ms"]
            assert operations["p50_ms"] <= operations["p50_ci_high_ms"]
        assert step["operations_per_s"] > 0
        client = step["client_memory"]
        assert client["per_connection_bytes"] is not None, client["note"]
        assert client["per_connection_bytes"] >= 0
        device = step["device_memory"]
        assert device["before_bytes"] > 0, device
        assert device["held_bytes"] > 0, device
        assert device["per_connection_bytes"] is None or device["per_connection_bytes"] >= 0
    rows = influx_query(
        f'SELECT "operation_p50_ms", "connections_held" FROM "held_connections" '
        f"WHERE \"run_id\" = '{document['run_id']}'"
    )
    [series] = rows
    assert sorted(row[2] for row in series["values"]) == list(COUNTS), series
