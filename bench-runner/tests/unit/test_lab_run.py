"""A run leaves netem's profile as it found it: read before the first change, applied back
under the run's lease at the end, after a failure too (against the fake netem)."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from bench_runner.cli import EXIT_LAB_UNREACHABLE, EXIT_MODE_FAILED, app
from bench_runner.netem import Lease, NetemClient, NetemState
from fake_netem import FakeNetem, serve_fake_netem

runner = CliRunner()


@pytest.fixture
def netem() -> Iterator[FakeNetem]:
    with serve_fake_netem() as fake:
        yield fake


@pytest.fixture
def lab_env(netem: FakeNetem, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The fake netem, and a device nobody answers for: every mode fails its RTT probe at
    once, so a run is quick and its profile changes are what is left to look at."""
    for name, value in {
        "NETEM_URL": netem.url,
        "DEVICE_HOST": "127.0.0.1",
        "DEVICE_HTTPS_PORT": "9",
        "DEVICE_METRICS_URL": "http://127.0.0.1:9",
        "DEVICE_USERNAME": "labops",
        "DEVICE_PASSWORD": "Secret123x",
        "RESULTS_DIR": str(tmp_path),
        "COLUMNS": "250",
    }.items():
        monkeypatch.setenv(name, value)


def bench(*profiles: str) -> tuple[int, str]:
    options = ["--modes", "https/keep-alive", "--iterations", "1", "--warmup", "0"]
    result = runner.invoke(
        app, ["run", "--no-sinks", "--run-id", "restore", "--profile", ",".join(profiles), *options]
    )
    return result.exit_code, result.output


@pytest.mark.usefixtures("lab_env")
def test_the_profile_of_before_the_run_is_applied_back(netem: FakeNetem) -> None:
    netem.change("applied", "campus")
    exit_code, output = bench("local", "regional")
    assert exit_code == EXIT_MODE_FAILED  # nothing answers on the device's port
    changes = [(event["event"], event["profile"]) for event in netem.events[-3:]]
    assert changes == [("applied", "local"), ("applied", "regional"), ("applied", "campus")]
    assert "netem: profile 'campus' restored, as it was before this run" in output
    assert netem.holder is None  # under the lease, released after


@pytest.mark.usefixtures("lab_env")
def test_the_profile_is_applied_back_after_a_failure(netem: FakeNetem) -> None:
    netem.change("applied", "campus")
    exit_code, output = bench("regional", "nope")  # netem has no profile nope
    assert exit_code == EXIT_LAB_UNREACHABLE
    assert "netem has no profile 'nope'" in output
    assert netem.profile() == "campus"
    assert "restored" in output


@pytest.mark.usefixtures("lab_env")
def test_a_run_at_the_profile_already_in_effect_keeps_it(netem: FakeNetem) -> None:
    exit_code, output = bench("regional")
    assert exit_code == EXIT_MODE_FAILED
    assert netem.events[-1]["profile"] == "regional"
    assert "netem: profile 'regional' kept, as it was before this run" in output


def test_a_cleared_profile_is_cleared_again(netem: FakeNetem) -> None:
    client = NetemClient(netem.url)
    netem.change("cleared", "none")
    before = client.current()
    client.apply("regional")
    assert client.restore(before.profile).profile.name == "none"
    assert netem.events[-1]["event"] == "cleared"


def test_a_custom_profile_is_applied_again_by_its_values(netem: FakeNetem) -> None:
    netem.custom["mine"] = {"name": "mine", "rtt_ms": 12.5, "jitter_ms": 4.0, "keep_order": True}
    netem.change("applied", "mine")  # PUT /profile by someone trying the device
    client = NetemClient(netem.url)
    before = client.current()
    client.apply("regional")
    restored = client.restore(before.profile)
    profile = restored.profile
    assert (profile.name, profile.rtt_ms, profile.jitter_ms, profile.keep_order) == (
        "mine",
        12.5,
        4.0,
        True,
    )


@pytest.mark.usefixtures("lab_env")
def test_after_a_netem_restart_the_profile_is_restored_under_a_new_lease(
    netem: FakeNetem, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A device restart restarts netem, which forgets the run's lease: the restore takes
    the lab again (it is free) rather than fail on the old token."""
    netem.change("applied", "campus")
    original = NetemClient.apply

    def apply_then_restart(
        client: NetemClient, name: str, lease: Lease | None = None
    ) -> NetemState:
        state = original(client, name, lease)
        netem.restart(profile=name)  # re-applies the profile from its state file
        return state

    monkeypatch.setattr(NetemClient, "apply", apply_then_restart)
    exit_code, output = bench("regional")
    assert exit_code == EXIT_MODE_FAILED
    assert netem.profile() == "campus"
    assert "netem: profile 'campus' restored" in output


FLEET_RUN = ["run", "--no-sinks", "--modes", "https/keep-alive", "--iterations", "1"]
FLEET_RUN += ["--warmup", "0", "--run-id"]


def fleet_inventory(path: Path, lab: bool) -> Path:
    inventory = path / "fleet.yaml"
    inventory.write_text(
        yaml.safe_dump(
            {
                "lab": lab,
                "targets": [
                    {"name": "lab-r1", "host": "127.0.0.1", "https_port": 9},
                    {"name": "lab-r2", "host": "127.0.0.2", "https_port": 9},
                ],
            }
        )
    )
    return inventory


@pytest.mark.usefixtures("lab_env")
def test_a_lab_fleet_is_measured_under_each_profile_applied_once(
    netem: FakeNetem, tmp_path: Path
) -> None:
    netem.change("applied", "campus")
    inventory = fleet_inventory(tmp_path, lab=True)
    result = runner.invoke(
        app, [*FLEET_RUN, "fleet", "--profile", "local,regional", "--targets", str(inventory)]
    )
    assert result.exit_code == EXIT_MODE_FAILED  # nothing answers on the devices' port
    applied = [event["profile"] for event in netem.events if event["event"] == "applied"]
    assert applied[-3:] == ["local", "regional", "campus"]  # the last: restored
    runs = sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("fleet-"))
    assert runs == [
        "fleet-local-lab-r1",
        "fleet-local-lab-r2",
        "fleet-regional-lab-r1",
        "fleet-regional-lab-r2",
    ]
    document = json.loads((tmp_path / "fleet-regional-lab-r2" / "results.json").read_text())
    assert document["profile"]["name"] == "regional"
    assert document["target"]["name"] == "lab-r2"
    # The RTT gate ran on that device's address and refused it (nothing listens there).
    [mode] = document["modes"]
    assert mode["rtt_check"]["applies"]
    assert not mode["rtt_check"]["passed"]
    assert "127.0.0.2" in mode["error_messages"][0]


@pytest.mark.usefixtures("lab_env")
def test_real_devices_leave_netem_alone(netem: FakeNetem, tmp_path: Path) -> None:
    before = len(netem.events)
    inventory = fleet_inventory(tmp_path, lab=False)
    result = runner.invoke(app, [*FLEET_RUN, "real", "--targets", str(inventory)])
    assert result.exit_code == EXIT_MODE_FAILED
    assert len(netem.events) == before
    assert netem.holder is None
