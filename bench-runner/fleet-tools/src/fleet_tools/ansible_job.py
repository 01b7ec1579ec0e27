"""The job with Ansible: one of the package's playbooks (fleet_tools/playbooks/) run by
``ansible_runner.run``, as automation platforms run playbooks, with ``forks`` = the job's
workers, on an inventory generated from the job (inventory.py).

What is timed:

* ``wall_s``: the ``ansible_runner.run`` call, from its start to its return: ansible-playbook's
  start (its interpreter and imports: part of every Ansible run), the play, the connections
  closed at its end. Preparing the private data directory before it and removing it after are
  not in it, nor is this program's own start-up.
* per device, ``elapsed_s`` and ``started_s``: from ansible-runner's events (ansible_events.py),
  the sum of the device's task durations and its first task's start.

The run happens in a private data directory under the temporary directory (``/tmp``): the
inventory, the playbook, ansible-runner's artifacts, and Ansible's home, local temporary
files and persistent-connection sockets; so it works as any user on an image that is
read-only but for /tmp. The directory is removed after the run.

The device's credentials never reach the disk, the command line or ansible-playbook's
environment (ansible-runner writes the environment and the command into its artifacts): the
playbooks prompt for them (``vars_prompt``) and ansible-runner types them in at the prompts
from memory (its ``passwords``), as AWX hands a job its credentials. DEVICE_USERNAME and
DEVICE_PASSWORD are taken out of the environment ansible-runner copies for the run.

``persistent: false`` (network_cli): the playbooks end each task with ``meta:
reset_connection``, tagged ``reset``; a persistent job skips the tag (``when`` cannot switch a
meta task: ansible-core warns and resets anyway). Ansible's network_cli is always a persistent
connection (one ``ansible-connection`` process per device): the reset closes it, and the next
task would log in again.
"""

import json
import logging
import math
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import ansible_runner

from fleet_tools.ansible_events import host_records
from fleet_tools.inventory import ansible_inventory
from fleet_tools.protocol import PASSWORD_ENV, USERNAME_ENV, Credentials, HostRecord, Job

log = logging.getLogger(__name__)

PLAYBOOKS = {
    "show": "show.yml",
    "facts": "facts.yml",
    "config": "config.yml",
    "netconf_get": "netconf_get.yml",
    "api_get": "api_get.yml",
}
INCLUDED = {"show": ("show_command.yml",)}
"""Per operation, the task files its playbook includes."""
RESET_TAG = "reset"
BIN_DIR = Path(sys.executable).parent
"""The environment's bin/, where ansible-playbook is."""
STDOUT_TAIL = 1500


def _package_playbook(name: str) -> str:
    return resources.files("fleet_tools").joinpath("playbooks", name).read_text()


def playbook_text(operation: str) -> str:
    """The operation's playbook and the task files it includes, from the package's data."""
    return "".join(
        _package_playbook(name) for name in (PLAYBOOKS[operation], *INCLUDED.get(operation, ()))
    )


def prompt_answers(credentials: Credentials) -> dict[str, str]:
    """ansible-runner's ``passwords``: each playbook prompt's pattern and its answer."""
    return {
        r"fleet-tools device username:\s*$": credentials.username,
        r"fleet-tools device password:\s*$": credentials.password,
    }


@contextmanager
def _without_credentials_in_environment() -> Iterator[None]:
    """DEVICE_USERNAME and DEVICE_PASSWORD out of os.environ for the block (ansible-runner
    copies os.environ into the run's environment and its artifacts), back afterwards."""
    saved = {
        name: os.environ.pop(name) for name in (USERNAME_ENV, PASSWORD_ENV) if name in os.environ
    }
    try:
        yield
    finally:
        os.environ.update(saved)


def extravars(job: Job) -> dict[str, Any]:
    """The playbook's variables (never a credential: ansible-runner writes these to disk)."""
    return {
        "fleet_commands": list(job.commands),
        "fleet_parents": list(job.config.parents),
        "fleet_lines": list(job.config.lines),
        "fleet_timeout_s": job.timeout_s,
    }


class AnsibleNotRunError(RuntimeError):
    """ansible-playbook did not start its play (not found, a playbook it cannot read)."""


def envvars(job: Job, private_data_dir: Path) -> dict[str, str]:
    """Ansible's settings for the run, everything it writes kept in the private data dir."""
    timeout = str(math.ceil(job.timeout_s))
    return {
        # This environment's commands (ansible-playbook, ansible-connection) first, whether or
        # not it was activated.
        "PATH": os.pathsep.join([str(BIN_DIR), os.environ.get("PATH", os.defpath)]),
        "HOME": str(private_data_dir / "home"),
        "ANSIBLE_LOCAL_TEMP": str(private_data_dir / "tmp" / "local"),
        "ANSIBLE_REMOTE_TEMP": str(private_data_dir / "tmp" / "remote"),
        "ANSIBLE_PERSISTENT_CONTROL_PATH_DIR": str(private_data_dir / "pc"),
        # Fact caching and retry files off; the lab's host keys are per container.
        "ANSIBLE_GATHERING": "explicit",
        "ANSIBLE_RETRY_FILES_ENABLED": "False",
        "ANSIBLE_HOST_KEY_CHECKING": "False",
        "ANSIBLE_NOCOLOR": "1",
        # One device's operation may take the job's timeout: the SSH connect, a command's
        # reply, a task; an idle persistent connection lives as long (ansible-core's default
        # for both persistent timeouts is 30 s).
        "ANSIBLE_TIMEOUT": timeout,
        "ANSIBLE_PERSISTENT_COMMAND_TIMEOUT": timeout,
        "ANSIBLE_PERSISTENT_CONNECT_TIMEOUT": str(max(30, math.ceil(job.timeout_s))),
        "ANSIBLE_TASK_TIMEOUT": timeout,
    }


def run_timeout_s(job: Job) -> int:
    """The whole run's limit: devices go ``workers`` at a time, plus a round for start-up."""
    return math.ceil(job.timeout_s * (math.ceil(len(job.hosts) / job.workers) + 1))


def prepare(job: Job, private_data_dir: Path) -> str:
    """Write the inventory and the playbook with what it includes (ansible-runner's layout);
    the playbook's name."""
    for directory in ("inventory", "project", "home", "tmp", "pc"):
        (private_data_dir / directory).mkdir(mode=0o700)
    # JSON is YAML: Ansible's yaml inventory plugin reads .json files.
    (private_data_dir / "inventory" / "hosts.json").write_text(
        json.dumps(ansible_inventory(job), indent=1)
    )
    playbook = PLAYBOOKS[job.operation]
    for name in (playbook, *INCLUDED.get(job.operation, ())):
        (private_data_dir / "project" / name).write_text(_package_playbook(name))
    return playbook


def _stdout_tail(runner: Any, credentials: Credentials) -> str:
    """The end of ansible-playbook's output (for a device without events), secrets masked."""
    try:
        text = str(runner.stdout.read())
    except (OSError, AttributeError, ValueError):
        return ""
    return text[-STDOUT_TAIL:].replace(credentials.password, "********").strip()


def run(job: Job, credentials: Credentials) -> tuple[float, list[HostRecord]]:
    """Run the job; its wall time and one record per device, in the job's order."""
    private_data_dir = Path(tempfile.mkdtemp(prefix="fleet-ansible-"))
    try:
        playbook = prepare(job, private_data_dir)
        job_started = datetime.now(UTC)
        clock = time.perf_counter()
        with _without_credentials_in_environment():
            runner = ansible_runner.run(
                private_data_dir=str(private_data_dir),
                playbook=playbook,
                forks=job.workers,
                envvars=envvars(job, private_data_dir),
                extravars=extravars(job),
                passwords=prompt_answers(credentials),
                skip_tags=RESET_TAG if job.persistent else None,
                timeout=run_timeout_s(job),
                quiet=True,
                suppress_env_files=True,
            )
        wall_s = time.perf_counter() - clock
        log.info("ansible-runner: status %s, rc %s", runner.status, runner.rc)
        events = list(runner.events)
        ended = f"ansible-playbook ended {runner.status} (rc {runner.rc})"
        tail = _stdout_tail(runner, credentials)
        if not any(event.get("event") == "playbook_on_start" for event in events):
            raise AnsibleNotRunError(f"{ended} before its play: {tail}")
        missing = f"{ended} without a result" + (f": {tail}" if tail else "")
        records = host_records(
            events,
            job.operation,
            [host.name for host in job.hosts],
            job_started,
            missing_error=missing,
        )
        return wall_s, records
    finally:
        shutil.rmtree(private_data_dir, ignore_errors=True)
