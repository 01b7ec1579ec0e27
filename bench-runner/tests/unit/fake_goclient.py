"""A stand-in for a goclient program (goclient, goclient-h3): a Python script that answers
``version``, reads the job, logs what it was given (argv, job, the credentials' variables)
and then runs ``body``, the mode's side of the protocol the test needs."""

import stat
import sys
from pathlib import Path

import pytest

PROLOGUE = r"""
import json, os, sys
if sys.argv[1] == "version":
    print(os.environ["FAKE_VERSION"])
    sys.exit(0)
job = json.loads(sys.stdin.readline())
with open(os.environ["FAKE_LOG"], "w") as log:
    json.dump({"argv": sys.argv[1:], "job": job,
               "user": os.environ.get(job["username_env"]),
               "password": os.environ.get(job["password_env"])}, log)
"""


def install(
    directory: Path, monkeypatch: pytest.MonkeyPatch, path_env: str, version: str, body: str
) -> Path:
    """The program in ``directory``, named by ``path_env`` for the adapter; the log its
    prologue writes."""
    program = directory / "goclient"
    program.write_text(f"#!{sys.executable}\n{PROLOGUE}{body}")
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    log = directory / "log.json"
    monkeypatch.setenv(path_env, str(program))
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_VERSION", version)
    return log
