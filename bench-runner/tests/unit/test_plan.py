from importlib.resources import files
from pathlib import Path

import pytest
import yaml

from bench_runner import targets
from bench_runner.modes import select_modes
from bench_runner.plan import BUILTIN_PLANS, Plan, PlanError, load_plan, override, parse_plan
from bench_runner.targets import load_inventory


@pytest.mark.parametrize("name", BUILTIN_PLANS)
def test_builtin_plans_load_and_select(name: str) -> None:
    plan = load_plan(name)
    assert plan.name == name
    selection = select_modes(plan.mode_names(), plan.client_names())
    assert selection.modes


def test_default_plan_is_the_stable_default() -> None:
    plan = load_plan(None)
    assert plan.profiles == ["local"]
    assert (plan.iterations, plan.warmup) == (None, 2)  # until precise
    assert (plan.precision_pct, plan.min_iterations, plan.max_iterations) == (3.0, 10, 200)
    assert plan.stopping_rule().adaptive
    assert plan.mode_names() is None
    assert plan.client_names() == ["floor"]
    assert plan.baseline == "ssh/pty-fresh"
    assert plan.commands == [
        "show version",
        "show clock",
        "show ip interface brief",
        "show inventory",
        "show running-config",
    ]


def test_the_plan_model_is_where_the_defaults_are_written() -> None:
    """The default plan is the model's defaults, and no built-in plan copies one: a plan
    file lists what differs (besides its name)."""
    defaults = Plan().model_dump()
    assert load_plan("default").model_dump() == defaults
    for name in BUILTIN_PLANS:
        resource = files("bench_runner").joinpath("plans", f"{name}.yaml")
        listed = yaml.safe_load(resource.read_text(encoding="utf-8")) or {}
        listed.pop("name")
        plan = parse_plan(yaml.safe_dump(listed), name).model_dump()
        copied = [key for key in listed if plan[key] == defaults[key]]
        assert not copied, f"{name} repeats defaults of Plan: {copied}"


@pytest.mark.parametrize(
    "commands", ["commands: 5", "commands: [5]", "commands: ['5', show clock]"]
)
def test_a_number_of_commands_is_refused(commands: str) -> None:
    """clibench's ``--commands 5`` is a count; here a number would be sent to the device
    and fail every iteration with % Invalid input."""
    with pytest.raises(PlanError, match="separated by semicolons") as raised:
        parse_plan(commands, "plan.yaml")
    assert "the number of commands per iteration is how many are listed" in str(raised.value)


def test_options_override_the_plan() -> None:
    plan = override(load_plan("smoke"), {"iterations": 7, "commands": ["show clock"]})
    assert (plan.name, plan.iterations, plan.commands) == ("smoke", 7, ["show clock"])
    with pytest.raises(PlanError, match=r"^invalid option: commands: .*got '5'"):
        override(plan, {"commands": ["5"]})


def test_plan_fields_and_defaults() -> None:
    plan = parse_plan(
        "profiles: [regional, leo]\nmodes: [ssh/batch-exec]\n"
        "clients: [paramiko, openssh]\niterations: 5\ncommands: [' show clock ']\n",
        "test",
    )
    assert plan.profiles == ["regional", "leo"]
    assert plan.mode_names() == ["ssh/batch-exec"]
    assert plan.client_names() == ["paramiko", "openssh"]
    assert plan.iterations == 5
    assert plan.warmup == 2
    assert plan.commands == ["show clock"]
    assert parse_plan("", "empty").name == "default"
    assert parse_plan("modes: all\nclients: all\n", "t").mode_names() == ["all"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("iterations: 0", "iterations"),
        ("profile: regional", "profile"),  # a typo of profiles is rejected, not ignored
        ("commands: ['']", "blank"),
        ("- a\n- b", "mapping"),
        ("modes: [", "not YAML"),
        ("profiles: []", "profiles"),
    ],
)
def test_bad_plans_are_rejected(text: str, message: str) -> None:
    with pytest.raises(PlanError, match=message):
        parse_plan(text, "bad.yaml")


def test_plan_file_and_missing_plan(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("name: mine\niterations: 3\n")
    assert load_plan(str(path)).name == "mine"
    with pytest.raises(PlanError, match="built-in plans"):
        load_plan(str(tmp_path / "nope.yaml"))


def test_inventory_reads_credentials_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "inventory.yaml"
    path.write_text(
        "targets:\n"
        "  - {name: edge-r1, host: 198.18.10.1, platform: cisco_iosxe,\n"
        "     username_env: EDGE_USER, password_env: EDGE_PASS}\n"
        "  - {name: edge-r2, host: 198.18.10.2, ssh_port: 2222, gnmi_port: 57400,\n"
        "     gnmi_tls_verify: true}\n"
    )
    monkeypatch.setenv("EDGE_USER", "ops")
    monkeypatch.setenv("EDGE_PASS", "s3cret")
    monkeypatch.setenv("DEVICE_USERNAME", "admin")
    monkeypatch.setenv("DEVICE_PASSWORD", "pw")
    inventory = load_inventory(path)
    first, second = (spec.target() for spec in inventory.targets)
    assert (first.host, first.username, first.password, first.https_port) == (
        "198.18.10.1",
        "ops",
        "s3cret",
        443,
    )
    assert (second.ssh_port, second.username) == (2222, "admin")
    # gNMI: the IANA port and no certificate check unless the inventory says otherwise.
    assert (first.gnmi_port, first.gnmi_tls_verify) == (9339, False)
    assert (second.gnmi_port, second.gnmi_tls_verify) == (57400, True)
    monkeypatch.delenv("EDGE_PASS")
    with pytest.raises(PlanError, match="EDGE_PASS"):
        inventory.targets[0].target()


def test_inventory_rejects_duplicates_and_bad_names(tmp_path: Path) -> None:
    path = tmp_path / "inventory.yaml"
    path.write_text("targets:\n  - {name: a, host: h}\n  - {name: a, host: h2}\n")
    with pytest.raises(PlanError, match="duplicate"):
        load_inventory(path)
    path.write_text("targets:\n  - {name: 'a b', host: h}\n")
    with pytest.raises(PlanError, match="name"):
        load_inventory(path)


def test_a_missing_inventory_says_where_the_runners_container_looks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(PlanError, match=r"no such file$"):
        load_inventory(tmp_path / "routers.yaml")
    # In the runner's container the host's results/ is /results: a host path is not there.
    monkeypatch.setattr(targets, "CONTAINER_RESULTS", tmp_path)
    with pytest.raises(PlanError, match=r"pass .*/routers.yaml, or use make bench-targets"):
        load_inventory(Path("inventories/routers.yaml"))


def test_asking_for_a_precision_measures_until_precise_even_where_the_plan_fixes_a_count() -> None:
    smoke = load_plan("smoke")
    assert smoke.iterations is not None
    assert override(smoke, {"precision_pct": 5.0}).iterations is None
    assert override(smoke, {"precision_pct": 5.0, "iterations": 4}).iterations == 4
    assert override(smoke, {"warmup": 0}).iterations == smoke.iterations


def test_a_minimum_above_the_maximum_is_refused() -> None:
    with pytest.raises(PlanError, match=r"min_iterations \(30\) exceeds max_iterations \(20\)"):
        override(Plan(), {"min_iterations": 30, "max_iterations": 20})
