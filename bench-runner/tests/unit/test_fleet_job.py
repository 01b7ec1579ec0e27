"""Fleet jobs (bench_runner/fleet_job): a step is validated before it reaches the lab, the
tools' program is driven through its JSON (a fake program here), the figures and the model
come from the devices' records, and the point InfluxDB gets names only the schema's fields."""

import asyncio
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench_runner.cli import EXIT_USAGE, app
from bench_runner.fleet_job.job import CONNECTIONS, FleetJob, FleetJobError
from bench_runner.fleet_job.publish import fleet_job_point
from bench_runner.fleet_job.results import DeviceRtt, FleetJobResult
from bench_runner.fleet_job.summary import job_model, per_device
from bench_runner.fleet_job.tools import (
    FLEET_TOOLS_PYTHON,
    ClientUsage,
    FleetHost,
    FleetToolError,
    HostRecord,
    job_timeout_s,
    parse_result,
    run_tools,
    tool_job,
)
from bench_runner.influx_schema import Measurement, field_names, tag_names
from bench_runner.results import LabInfo, ProfileInfo, RunnerInfo
from bench_runner.rtt_probe import check_rtt
from prerequisites import missing

HOSTS = [
    FleetHost(
        name=f"lab-r{k}",
        host=f"198.18.101.{128 + k}",
        platform="cisco_iosxe",
        ssh_port=22,
        https_port=443,
        netconf_port=830,
    )
    for k in range(1, 4)
]


def _record(name: str, elapsed_s: float | None, ok: bool = True) -> HostRecord:
    return HostRecord(
        name=name,
        ok=ok,
        elapsed_s=elapsed_s,
        started_s=0.0,
        changed=False,
        outputs=["hostname " + name],
        error=None if ok else "timed out",
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"tool": "salt", "connection": "netmiko"}, "unknown tool"),
        ({"tool": "nornir", "connection": "network_cli"}, "no connection"),
        ({"tool": "nornir", "connection": "ncclient", "operation": "show"}, "runs netconf_get"),
        ({"tool": "nornir", "connection": "netmiko", "ssh_type": "libssh"}, "network_cli only"),
        ({"tool": "ansible", "connection": "uri", "operation": "api_get", "persistent": False},
         "network_cli only"),
        ({"tool": "nornir", "connection": "netmiko", "workers": 0}, "at least 1"),
        ({"tool": "nornir", "connection": "netmiko", "commands": ()}, "at least one command"),
    ],
)  # fmt: skip
def test_a_step_that_cannot_run_is_refused_with_its_reason(
    options: dict[str, object], message: str
) -> None:
    arguments: dict[str, object] = {"operation": "show", "devices": 3, "workers": 3} | options
    with pytest.raises(FleetJobError, match=message):
        FleetJob(**arguments)  # type: ignore[arg-type]


def test_the_label_says_what_sets_a_step_apart() -> None:
    ansible = FleetJob("ansible", "network_cli", "config", 10, 5, persistent=False)
    assert ansible.label == "ansible/network_cli/config · libssh · reset"
    assert ansible.transport == "ssh"
    nornir = FleetJob("nornir", "ncclient", "netconf_get", 10, 5)
    assert (nornir.label, nornir.transport, nornir.effective_ssh_type) == (
        "nornir/ncclient/netconf_get",
        "netconf",
        None,
    )


def test_the_program_gets_the_job_but_never_the_credentials() -> None:
    job = FleetJob("ansible", "network_cli", "show", 3, 2, ssh_type="paramiko")
    sent = tool_job(job, HOSTS, 30.0)
    assert sent["ssh_type"] == "paramiko"
    assert sent["workers"] == 2
    assert [host["host"] for host in sent["hosts"]] == [host.host for host in HOSTS]  # type: ignore[index, union-attr]
    assert "password" not in json.dumps(sent).lower()
    assert job_timeout_s(job, 30.0) == 30.0 * (2 + 2)


def _answer(names: list[str]) -> bytes:
    return json.dumps(
        {
            "tool": "nornir",
            "versions": {"nornir": "3.6.0"},
            "wall_s": 1.5,
            "hosts": [_record(name, 0.5).model_dump() for name in names],
            "client": {"cpu_s": 0.2, "max_rss_bytes": 80_000_000},
        }
    ).encode()


def test_an_answer_must_cover_the_job_s_devices_and_no_more() -> None:
    names = [host.name for host in HOSTS]
    assert [record.name for record in parse_result(_answer(names), HOSTS).hosts] == names
    with pytest.raises(FleetToolError, match="not for the job's devices"):
        parse_result(_answer([*names, "lab-r9"]), HOSTS)
    with pytest.raises(FleetToolError, match="unreadable"):
        parse_result(b"Traceback (most recent call last):", HOSTS)


def _fake_program(tmp_path: Path, body: str) -> str:
    """A program standing in for the environment's interpreter: ``-m fleet_tools`` runs
    ``body`` with the job on its input."""
    script = tmp_path / "fake-python"
    script.write_text(
        f"#!{sys.executable}\nimport json, os, sys\njob = json.load(sys.stdin)\n{body}\n"
    )
    script.chmod(0o755)
    return str(script)


def test_the_program_is_driven_through_its_input_and_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [host.name for host in HOSTS]
    body = (
        "assert os.environ['DEVICE_PASSWORD'] == 'Secret123x'\n"
        f"sys.stdout.write({_answer(names).decode()!r})"
    )
    monkeypatch.setenv("BENCH_FLEET_TOOLS", _fake_program(tmp_path, body))
    job = FleetJob("nornir", "netmiko", "show", 3, 3)
    result = asyncio.run(run_tools(job, HOSTS, "labops", "Secret123x", 10.0))
    assert result.wall_s == 1.5


def test_a_refused_job_fails_with_what_the_program_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "sys.stderr.write('bad job: no hosts'); sys.exit(2)"
    monkeypatch.setenv("BENCH_FLEET_TOOLS", _fake_program(tmp_path, body))
    job = FleetJob("nornir", "netmiko", "show", 3, 3)
    with pytest.raises(FleetToolError, match="exit status 2: bad job: no hosts"):
        asyncio.run(run_tools(job, HOSTS, "labops", "Secret123x", 10.0))


def test_per_device_figures_leave_failures_out_and_count_them() -> None:
    records = [_record(f"r{k}", 1.0 + k / 100) for k in range(9)] + [_record("r9", None, False)]
    stats = per_device(records)
    assert (stats.n, stats.errors) == (9, 1)
    assert stats.p50_ms == pytest.approx(1040.0)
    assert stats.p50_ci_low_ms is not None


def test_the_model_is_rounds_of_one_device_s_time() -> None:
    stats = per_device([_record(f"r{k}", 2.0 + k / 1000) for k in range(10)])
    follows = job_model(10, 4, stats, wall_s=6.02)
    assert follows.rounds == 3
    assert follows.predicted_wall_s == pytest.approx(3 * 2.0045, rel=1e-3)
    assert follows.verdict == "follows"
    slower = job_model(10, 4, stats, wall_s=9.0)
    assert slower.verdict == "slower"
    assert slower.error_pct == pytest.approx((9.0 - 6.0135) / 6.0135 * 100, rel=1e-3)
    few = per_device([_record("r1", 2.0), _record("r2", 2.0)])
    assert job_model(2, 1, few, wall_s=4.3).verdict == "follows"  # within 10 %, no interval
    assert job_model(2, 1, few, wall_s=5.0).verdict == "slower"
    assert job_model(2, 1, per_device([_record("r1", None, False)]), 1.0).verdict == "unknown"


def _result() -> FleetJobResult:
    records = [_record(host.name, 0.9) for host in HOSTS]
    stats = per_device(records)
    profile = ProfileInfo(
        name="regional", rtt_ms=30.0, jitter_ms=0.0, loss_pct=0.0, rate_mbit=0.0,
        source=None, engine="nfq", engine_reason=None, applied_at=None, readback=None,
    )  # fmt: skip
    now = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
    return FleetJobResult(
        run_id="fleet-1", started_at=now, finished_at=now,
        lab=LabInfo(commit="abc", images=None), runner=RunnerInfo(version="0", python="3.13"),
        profile=profile, tool="nornir", connection="netmiko", operation="show",
        transport="ssh", ssh_type=None, persistent=True, label="nornir/netmiko/show",
        devices=3, workers=3, commands=["show version"], config_lines=[],
        versions={"nornir": "3.6.0", "netmiko": "4.8.0"},
        rtt=[DeviceRtt(name=h.name, host=h.host, port=22, verified_rtt_ms=30.4,
                       check=check_rtt(30.0, 30.4)) for h in HOSTS],
        ok=True, error=None, wall_s=1.0, per_device=stats,
        model=job_model(3, 3, stats, 1.0), client=ClientUsage(cpu_s=0.3, max_rss_bytes=1),
        device_resources=None, hosts=records,
    )  # fmt: skip


def test_the_point_names_only_the_schema_s_tags_and_fields() -> None:
    point = fleet_job_point(_result())
    assert point.measurement == Measurement.FLEET_JOB
    assert set(point.tags) <= tag_names()
    assert set(point.fields) <= field_names(Measurement.FLEET_JOB, (), (), ())
    assert point.tags["client_version"] == "3.6.0"
    assert point.fields["verified_rtt_ms"] == pytest.approx(30.4)
    assert point.fields["predicted_wall_s"] == pytest.approx(0.9)


def test_the_runner_and_the_program_agree_on_the_contract() -> None:
    """The runner checks a step before it touches the lab; the program checks it again at its
    own boundary, in its own environment: both must name the same connections, operations and
    device fields."""
    python = Path(FLEET_TOOLS_PYTHON)
    if not python.exists():
        missing(f"the fleet tools' environment ({python}): run in the runner's test image")
    program = (
        "import dataclasses, json; from fleet_tools import protocol as p; "
        "print(json.dumps({'connections': p.CONNECTIONS, "
        "'host': [f.name for f in dataclasses.fields(p.Host)]}))"
    )
    answer = subprocess.run(
        [str(python), "-c", program], capture_output=True, text=True, timeout=60, check=True
    )
    contract = json.loads(answer.stdout)
    assert contract["connections"] == {
        tool: {name: list(operations) for name, operations in connections.items()}
        for tool, connections in CONNECTIONS.items()
    }
    assert contract["host"] == list(FleetHost.model_fields)


def test_the_command_refuses_a_step_before_it_touches_the_lab(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NETEM_URL", "http://127.0.0.1:9")  # nothing answers: never asked
    answer = CliRunner().invoke(
        app, ["fleet-job", "--tool", "nornir", "--connection", "network_cli"]
    )
    assert answer.exit_code == EXIT_USAGE
    assert "nornir has no connection 'network_cli'" in answer.output
