"""Shared fixtures, and the `netns` marker's prerequisites: root, iptables-legacy with NFQUEUE, the
nfq-delayer binary and network namespaces. Without them a `netns` test skips loudly; under CI=true
it fails instead, since a check that cannot run must not pass."""

import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

NETEM_DIR = Path(__file__).resolve().parent.parent
PROFILES_FILE = NETEM_DIR / "profiles.yaml"
CI = os.environ.get("CI") == "true"


def delayer_path() -> str | None:
    for candidate in (
        os.environ.get("NETEM_DELAYER"),
        shutil.which("nfq-delayer"),
        str(NETEM_DIR / "delayer" / "nfq-delayer"),
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@functools.cache
def netns_problem() -> str | None:
    """Why `netns` tests cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, iptables)"
    if not shutil.which("iptables-legacy"):
        return "needs iptables-legacy"
    if delayer_path() is None:
        return "needs the nfq-delayer binary (make -C netem/delayer, or NETEM_DELAYER=...)"
    probe = subprocess.run(["ip", "netns", "add", "tl-probe"], capture_output=True, text=True)
    subprocess.run(["ip", "netns", "del", "tl-probe"], capture_output=True)
    if probe.returncode != 0:
        return (
            f"cannot create network namespaces: {probe.stderr.strip()} "
            "(docker run needs NET_ADMIN, SYS_ADMIN and seccomp=unconfined)"
        )
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("netns") is None or (problem := netns_problem()) is None:
        return
    if CI:
        pytest.fail(f"CI=true and this netns test cannot run: {problem}", pytrace=False)
    pytest.skip(f"netns: {problem}")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "netns" in r.keywords]
    if skipped:
        terminalreporter.write_line(
            f"WARNING: {len(skipped)} netns tests SKIPPED ({netns_problem()}); "
            "they fail under CI=true",
            red=True,
            bold=True,
        )


@pytest.fixture(scope="session")
def profiles_file() -> Path:
    return PROFILES_FILE
