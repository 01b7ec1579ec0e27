"""ansible-runner's events (recorded against the lab) become one record per device: its
tasks' time, its start, changed, its outputs, its error."""

from datetime import datetime
from typing import Any

import pytest

from fleet_tools.ansible_events import host_records


def records(recorded: dict[str, Any], name: str) -> list[Any]:
    sample = recorded[name]
    return host_records(
        sample["events"],
        sample["operation"],
        sample["hosts"],
        datetime.fromisoformat(sample["job_started"]),
    )


def test_show_gives_each_command_output_and_the_tasks_time(
    recorded_events: dict[str, Any],
) -> None:
    sample = recorded_events["show_reset"]
    result = records(recorded_events, "show_reset")
    assert [record.name for record in result] == ["lab-r1", "lab-r2", "lab-r3"]
    for record in result:
        assert record.ok
        assert record.error is None
        assert record.changed is False
        assert len(record.outputs) == 1
        assert "Cisco IOS XE Software" in record.outputs[0]
        # One task ran per device (the other platform's was skipped): its duration.
        (event,) = [
            e
            for e in sample["events"]
            if e["event"] == "runner_on_ok" and e["event_data"]["host"] == record.name
        ]
        assert record.elapsed_s == pytest.approx(event["event_data"]["duration"], abs=1e-5)
        assert record.started_s is not None
        assert 0 < record.started_s < 10


def test_an_unreachable_device_fails_alone(recorded_events: dict[str, Any]) -> None:
    result = {record.name: record for record in records(recorded_events, "show_unreachable")}
    assert [result[f"lab-r{k}"].ok for k in (1, 2, 3)] == [True, True, True]
    assert [len(result[f"lab-r{k}"].outputs) for k in (1, 2, 3)] == [2, 2, 2]
    gone = result["lab-gone"]
    assert not gone.ok
    assert gone.changed is None
    assert gone.outputs == []
    assert gone.error is not None
    assert "Unable to connect to port 22" in gone.error
    assert gone.error.startswith("ios_command: ")
    assert gone.elapsed_s is not None
    assert gone.elapsed_s > 1


def test_a_refused_command_fails_the_device(recorded_events: dict[str, Any]) -> None:
    (record,) = records(recorded_events, "show_refused")
    assert not record.ok
    assert record.error is not None
    assert "% Invalid input detected" in record.error


def test_config_reports_changed_and_the_lines_sent(recorded_events: dict[str, Any]) -> None:
    for record in records(recorded_events, "config_changed"):
        assert record.ok
        assert record.changed is True
        assert record.outputs == [
            "interface GigabitEthernet1\ndescription fleet-tools ansible run 2"
        ]
    for record in records(recorded_events, "config_unchanged"):
        assert record.ok
        assert record.changed is False
        assert record.outputs == []


def test_api_get_gives_each_request_content(recorded_events: dict[str, Any]) -> None:
    for record in records(recorded_events, "api_get"):
        assert record.ok
        assert len(record.outputs) == 2
        assert "uptime is" in record.outputs[0]
        assert "Interface" in record.outputs[1]


def test_netconf_get_gives_the_reply(recorded_events: dict[str, Any]) -> None:
    for record in records(recorded_events, "netconf_get"):
        assert record.ok
        (xml,) = record.outputs
        assert "interfaces-state" in xml


def test_facts_are_one_json_output(recorded_events: dict[str, Any]) -> None:
    for record in records(recorded_events, "facts"):
        assert record.ok
        (facts,) = record.outputs
        assert '"ansible_net_hostname": "' + record.name + '"' in facts


def test_a_device_without_events_failed(recorded_events: dict[str, Any]) -> None:
    sample = recorded_events["show_reset"]
    (record,) = host_records(
        sample["events"],
        "show",
        ["lab-r9"],
        datetime.fromisoformat(sample["job_started"]),
        missing_error="ansible-playbook ended failed (rc 4) without a result",
    )
    assert not record.ok
    assert record.elapsed_s is None
    assert record.started_s is None
    assert record.error == "ansible-playbook ended failed (rc 4) without a result"


def test_an_ignored_failure_is_no_failure(recorded_events: dict[str, Any]) -> None:
    sample = recorded_events["show_refused"]
    events = [
        e | {"event_data": e["event_data"] | {"ignore_errors": True}}
        if e["event"] == "runner_on_failed"
        else e
        for e in sample["events"]
    ]
    (record,) = host_records(
        events, "show", sample["hosts"], datetime.fromisoformat(sample["job_started"])
    )
    assert record.ok
    assert record.error is None
