"""The job is parsed and checked before anything runs: every mistake is refused with the
field's name and the reason."""

from typing import Any

import pytest

from fleet_tools.protocol import (
    OUTPUT_LIMIT_BYTES,
    JobError,
    bounded,
    credentials_from,
    parse_job,
)


def test_a_runner_job_parses(job_document: dict[str, Any]) -> None:
    job = parse_job(job_document)
    assert (job.tool, job.connection, job.operation, job.workers) == (
        "nornir",
        "netmiko",
        "show",
        3,
    )
    assert job.ssh_type is None
    assert job.commands == ("show version",)
    assert job.config.parents == ("interface GigabitEthernet1",)
    assert [host.name for host in job.hosts] == ["lab-r1", "lab-r2", "lab-r3"]
    assert job.hosts[0].netconf_port == 830
    assert job.timeout_s == 30.0


def test_network_cli_defaults_to_libssh(job_document: dict[str, Any]) -> None:
    job_document |= {"tool": "ansible", "connection": "network_cli"}
    assert parse_job(job_document).ssh_type == "libssh"
    job_document["ssh_type"] = "paramiko"
    assert parse_job(job_document).ssh_type == "paramiko"


def test_optional_fields_have_defaults(job_document: dict[str, Any]) -> None:
    for name in ("ssh_type", "persistent", "config", "timeout_s"):
        del job_document[name]
    job = parse_job(job_document)
    assert job.persistent is True
    assert job.config.lines == ()
    assert job.timeout_s == 30.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tool": "salt"}, "tool: expected one of nornir, ansible"),
        ({"connection": "network_cli"}, "connection: expected one of netmiko, scrapli, ncclient"),
        ({"operation": "facts"}, "operation: expected one of show, config"),
        ({"connection": "ncclient"}, "operation: expected one of netconf_get"),
        ({"ssh_type": "libssh"}, "ssh_type: applies to Ansible's network_cli only"),
        ({"persistent": False}, "persistent: false applies to Ansible's network_cli only"),
        ({"persistent": "no"}, "persistent: expected true or false"),
        ({"workers": 0}, "workers: expected at least 1, got 0"),
        ({"workers": True}, "workers: expected an integer"),
        ({"workers": 2.5}, "workers: expected an integer"),
        ({"commands": []}, "commands: a show job needs at least one command"),
        ({"commands": ["show version", ""]}, r"commands\[1\]: expected a non-empty string"),
        ({"commands": "show version"}, "commands: expected a list of strings"),
        ({"hosts": []}, "hosts: expected a non-empty list"),
        ({"timeout_s": 0}, "timeout_s: expected a positive number"),
        ({"timeout_s": "30"}, "timeout_s: expected a positive number"),
        ({"verbose": True}, "unknown field"),
        ({"config": {"parents": [], "line": ["x"]}}, "config: unknown field"),
    ],
)
def test_a_job_that_cannot_run_is_refused_with_its_reason(
    job_document: dict[str, Any], change: dict[str, Any], message: str
) -> None:
    with pytest.raises(JobError, match=message):
        parse_job(job_document | change)


def test_a_config_job_needs_lines(job_document: dict[str, Any]) -> None:
    job_document |= {"operation": "config", "config": {"parents": ["interface Gi1"]}}
    with pytest.raises(JobError, match=r"config\.lines: a config job needs at least one line"):
        parse_job(job_document)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ssh_port": 0}, r"hosts\[1\].ssh_port: expected 1-65535, got 0"),
        ({"netconf_port": "830"}, r"hosts\[1\].netconf_port: expected an integer"),
        ({"platform": "juniper_junos"}, r"hosts\[1\].platform: expected one of"),
        ({"name": "lab-r1"}, "hosts: duplicate name"),
        ({"password": "x"}, r"hosts\[1\]: unknown field\(s\) password"),
    ],
)
def test_a_bad_device_is_named(
    job_document: dict[str, Any], change: dict[str, Any], message: str
) -> None:
    job_document["hosts"][1] |= change
    with pytest.raises(JobError, match=message):
        parse_job(job_document)


def test_a_device_missing_fields_is_named(job_document: dict[str, Any]) -> None:
    del job_document["hosts"][2]["https_port"]
    with pytest.raises(JobError, match=r"hosts\[2\]: missing https_port"):
        parse_job(job_document)


def test_a_job_is_an_object() -> None:
    with pytest.raises(JobError, match="must be a JSON object, not list"):
        parse_job([])


def test_credentials_come_from_the_environment() -> None:
    credentials = credentials_from({"DEVICE_USERNAME": "operator", "DEVICE_PASSWORD": "s3cret"})
    assert credentials.username == "operator"
    assert "s3cret" not in repr(credentials)
    with pytest.raises(JobError, match="DEVICE_PASSWORD not set"):
        credentials_from({"DEVICE_USERNAME": "operator"})


def test_outputs_are_bounded() -> None:
    assert bounded("short") == "short"
    long = "é" * OUTPUT_LIMIT_BYTES
    cut = bounded(long)
    assert len(cut.encode()) <= OUTPUT_LIMIT_BYTES
    assert cut.endswith(f"[... {2 * OUTPUT_LIMIT_BYTES} bytes, cut to {OUTPUT_LIMIT_BYTES}]")
