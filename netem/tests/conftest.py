"""Shared fixtures. Integration tests need root, iptables-legacy with NFQUEUE and the nfq-delayer binary;
without them they are skipped with the reason."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

NETEM_DIR = Path(__file__).resolve().parent.parent
PROFILES_FILE = NETEM_DIR / "profiles.yaml"


def delayer_path() -> str | None:
    for candidate in (os.environ.get("NETEM_DELAYER"), shutil.which("nfq-delayer"),
                      str(NETEM_DIR / "delayer" / "nfq-delayer")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def netns_skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root (network namespaces, iptables)"
    if not shutil.which("iptables-legacy"):
        return "needs iptables-legacy"
    if delayer_path() is None:
        return "needs the nfq-delayer binary (make -C netem/delayer, or NETEM_DELAYER=...)"
    probe = subprocess.run(["ip", "netns", "add", "tl-probe"], capture_output=True, text=True)
    subprocess.run(["ip", "netns", "del", "tl-probe"], capture_output=True)
    if probe.returncode != 0:
        return f"cannot create network namespaces: {probe.stderr.strip()} (docker run needs --privileged)"
    return None


@pytest.fixture(scope="session")
def profiles_file() -> Path:
    return PROFILES_FILE
