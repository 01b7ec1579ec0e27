"""Runs every example of README.md, CONTRIBUTING.md and docs/ marked ``runs``
(tests/unit/docs/examples.py) as written, against the test lab of ``make test-e2e``.

An example that calls make or docker runs on the host, in the repository, with
COMPOSE_PROJECT_NAME and COMPOSE_FILE naming the test lab: `docker compose run ...` and the
make targets reach it as they reach a lab `make up` started. Any other example runs in a
container on the lab's network, with the repository as its working directory, where
127.0.0.1 on each port `.env.example` publishes reaches the service `make up` publishes there
(socat). Each runs under `bash -euo pipefail`; the first failure is printed with its output.

usage: python3 tests/e2e/doc_examples/run.py   (from the repository root; env: TEST_COMPOSE_PROJECT)
"""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path.cwd()
sys.path.insert(0, str(ROOT / "tests/unit/docs"))
from examples import Example, shell_examples  # noqa: E402 - the docs check's own module

IMAGE = os.environ.get("DOC_EXAMPLES_IMAGE", "transport-lab/doc-examples:dev")
PROJECT = os.environ.get("TEST_COMPOSE_PROJECT", "transport-lab-test")
COMPOSE_FILE = "compose.yaml:compose.test.yaml"
PUBLISHED = {
    "LAB_SSH_PORT": ("device", 22),
    "LAB_HTTPS_PORT": ("device", 443),
    "LAB_NETCONF_PORT": ("device", 830),
    "LAB_GNMI_PORT": ("device", 9339),
    "LAB_DEVICE_METRICS_PORT": ("device", 9100),
    "LAB_NETEM_PORT": ("device", 8181),
    "LAB_INFLUXDB_PORT": ("influxdb", 8086),
    "LAB_PUSHGATEWAY_PORT": ("pushgateway", 9091),
    "LAB_PROMETHEUS_PORT": ("prometheus", 9090),
}
"""What `make up` publishes on 127.0.0.1 (compose.yaml's ports): host port variable -> the
service and port behind it."""
TIMEOUT_S = 900


def documents() -> list[str]:
    names = ["README.md", "CONTRIBUTING.md"]
    names += sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))
    return [name for name in names if (ROOT / name).is_file() and name != "docs/modes.md"]


def published_ports() -> dict[int, tuple[str, int]]:
    defaults = dict(re.findall(r"^(LAB_\w+_PORT)=(\d+)", (ROOT / ".env.example").read_text(), re.M))
    return {int(defaults[name]): target for name, target in PUBLISHED.items()}


def untracked() -> set[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return set(listed.stdout.splitlines())


def on_host(example: Example) -> subprocess.CompletedProcess[str]:
    """In the repository, as the user runs it there; files it writes are removed after."""
    env = {**os.environ, "COMPOSE_PROJECT_NAME": PROJECT, "COMPOSE_FILE": COMPOSE_FILE}
    before = untracked()
    try:
        return subprocess.run(
            ["bash", "-euo", "pipefail", "-c", example.code],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
        )  # fmt: skip
    finally:
        for name in untracked() - before:
            (ROOT / name).unlink()


def in_container(example: Example) -> subprocess.CompletedProcess[str]:
    forwarders = " ".join(
        f"socat TCP-LISTEN:{port},bind=127.0.0.1,fork,reuseaddr TCP:{host}:{target} &"
        for port, (host, target) in published_ports().items()
    )
    script = f'{forwarders} sleep 0.5; bash -euo pipefail -c "$EXAMPLE"'
    return subprocess.run(
        ["docker", "run", "--rm", "--network", f"{PROJECT}_lab", "-v", f"{ROOT}:/repo",
         "-w", "/repo", "-e", "EXAMPLE", IMAGE, "bash", "-c", script],
        env={**os.environ, "EXAMPLE": example.code},
        capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )  # fmt: skip


def main() -> int:
    runnable = [e for name in documents() for e in shell_examples(ROOT, name) if e.runs]
    failed = 0
    for example in runnable:
        where = "host" if example.on_host() else "container"
        started = time.monotonic()
        done = on_host(example) if example.on_host() else in_container(example)
        seconds = time.monotonic() - started
        verdict = "ok" if done.returncode == 0 else f"FAILED (exit {done.returncode})"
        print(f"doc example {example.where()} ({where}, {seconds:.0f} s): {verdict}")
        if done.returncode != 0:
            failed += 1
            print(example.code, done.stdout[-3000:], done.stderr[-3000:], sep="\n")
    print(f"doc examples: {len(runnable) - failed} of {len(runnable)} ran as written")
    return 1 if failed or not runnable else 0


if __name__ == "__main__":
    sys.exit(main())
