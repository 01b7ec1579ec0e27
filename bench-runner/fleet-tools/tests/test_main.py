"""The program's exit status and channels: a bad job exits 2 with its reason on standard
error and nothing on standard output."""

import json
import subprocess
import sys
from typing import Any

import pytest


def run(stdin: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fleet_tools"],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


CREDENTIALS = {"DEVICE_USERNAME": "operator", "DEVICE_PASSWORD": "s3cret", "PATH": "/usr/bin"}


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("not json", "the job is not JSON"),
        ('{"tool": "nornir"}', "operation: missing"),
    ],
)
def test_a_bad_job_exits_2(stdin: str, message: str) -> None:
    done = run(stdin, CREDENTIALS)
    assert done.returncode == 2
    assert done.stdout == ""
    assert message in done.stderr


def test_missing_credentials_exit_2(job_document: dict[str, Any]) -> None:
    done = run(json.dumps(job_document), {"PATH": "/usr/bin"})
    assert done.returncode == 2
    assert "DEVICE_USERNAME, DEVICE_PASSWORD not set" in done.stderr
