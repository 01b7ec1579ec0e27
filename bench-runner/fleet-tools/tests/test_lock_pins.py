"""Every package the fleet tools' environment shares with the runner's is locked at the
runner's version: a fleet job drives the device with the netmiko, scrapli, paramiko and
ncclient the runner measures."""

import re
from pathlib import Path

FLEET_TOOLS = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)", re.MULTILINE)


def pins(lock: Path) -> dict[str, str]:
    """``name: version`` of a uv lock, names normalized (PEP 503)."""
    return {
        re.sub(r"[-_.]+", "-", name).lower(): version
        for name, version in PIN.findall(lock.read_text())
    }


def test_shared_packages_have_the_runners_versions() -> None:
    runner = pins(FLEET_TOOLS.parent / "requirements.lock")
    for lock in ("requirements.lock", "requirements-dev.lock"):
        tools = pins(FLEET_TOOLS / lock)
        shared = sorted(set(tools) & set(runner))
        assert {"netmiko", "scrapli", "paramiko", "ncclient"} <= set(shared)
        differ = {
            name: (tools[name], runner[name]) for name in shared if tools[name] != runner[name]
        }
        assert differ == {}, f"{lock}: (fleet tools, runner) {differ}"


def test_the_locks_pin_the_direct_dependencies() -> None:
    tools = pins(FLEET_TOOLS / "requirements.lock")
    assert tools["nornir"] == "3.6.0"
    assert tools["ansible"] == "12.3.0"
    assert tools["ansible-core"] == "2.19.14"
