"""The private data directory Ansible runs in: every playbook is there, prompts for the
credentials ansible-runner answers, and nothing on disk holds a secret."""

import re
from pathlib import Path
from typing import Any

import pytest

from fleet_tools.ansible_job import (
    INCLUDED,
    PLAYBOOKS,
    RESET_TAG,
    envvars,
    extravars,
    playbook_text,
    prepare,
    prompt_answers,
)
from fleet_tools.protocol import CONNECTIONS, Credentials, parse_job

OPERATION_CONNECTION = {
    operation: connection
    for connection, operations in CONNECTIONS["ansible"].items()
    for operation in operations
}


@pytest.mark.parametrize("operation", sorted(PLAYBOOKS))
def test_every_playbook_prompts_for_what_the_runner_answers(operation: str) -> None:
    text = playbook_text(operation)
    prompts = re.findall(r"prompt: (.+)", text)
    assert len(prompts) == 2
    patterns = prompt_answers(Credentials("operator", "s3cret"))
    # What ansible-playbook prints: the prompt and ": ".
    for prompt, pattern in zip(prompts, patterns, strict=True):
        assert re.search(pattern, prompt + ": ")
    if OPERATION_CONNECTION[operation] == "network_cli":
        assert f"tags: [{RESET_TAG}]" in text


@pytest.mark.parametrize("operation", sorted(PLAYBOOKS))
def test_the_private_data_dir_holds_no_secret(
    job_document: dict[str, Any], operation: str, tmp_path: Path
) -> None:
    job = parse_job(
        job_document
        | {"tool": "ansible", "operation": operation, "connection": OPERATION_CONNECTION[operation]}
    )
    playbook = prepare(job, tmp_path)
    written_playbooks = [
        (tmp_path / "project" / name).read_text()
        for name in (playbook, *INCLUDED.get(operation, ()))
    ]
    assert "".join(written_playbooks) == playbook_text(operation)
    assert (tmp_path / "inventory" / "hosts.json").is_file()
    written = "".join(path.read_text() for path in tmp_path.rglob("*") if path.is_file())
    assert "s3cret" not in written
    assert "DEVICE_PASSWORD" not in written
    # What Ansible writes (home, temporary files, sockets) stays in the directory.
    settings = envvars(job, tmp_path)
    for name in ("HOME", "ANSIBLE_LOCAL_TEMP", "ANSIBLE_PERSISTENT_CONTROL_PATH_DIR"):
        assert settings[name].startswith(str(tmp_path))
    assert "s3cret" not in repr(extravars(job))
