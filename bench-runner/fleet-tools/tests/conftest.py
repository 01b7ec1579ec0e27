"""Shared fixtures: a valid job document per tool, the recorded ansible-runner events."""

import json
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"


def host(index: int) -> dict[str, Any]:
    return {
        "name": f"lab-r{index}",
        "host": f"198.18.130.{128 + index}",
        "platform": "cisco_iosxe",
        "ssh_port": 22,
        "https_port": 443,
        "netconf_port": 830,
    }


@pytest.fixture
def job_document() -> dict[str, Any]:
    """A Nornir show job on three devices, as the runner writes it."""
    return {
        "tool": "nornir",
        "operation": "show",
        "connection": "netmiko",
        "ssh_type": None,
        "persistent": True,
        "workers": 3,
        "commands": ["show version"],
        "config": {"parents": ["interface GigabitEthernet1"], "lines": ["description x"]},
        "hosts": [host(k) for k in (1, 2, 3)],
        "timeout_s": 30.0,
    }


@pytest.fixture(scope="session")
def recorded_events() -> dict[str, Any]:
    """ansible-runner events recorded against the lab (three devices; `show_unreachable` adds
    a fourth, absent address), trimmed to the fields the parser reads; the account renamed."""
    data: dict[str, Any] = json.loads((DATA / "ansible_events.json").read_text())
    return data
