"""scrapligo against the device, through goclient (bench-runner/goclient), the Go program the
runner measures it with: every mode it implements, both NETCONF framings (the second device
offers base:1.0 only), the device unmodified. The program runs its iterations back to back
here (a job that is not paced) and reports each one as a JSON line."""

import json
import os
import shutil
import subprocess

import pytest
from lxml import etree
from ncclient import manager

from conftest import HOST, HOST10, PASSWORD, USERNAME

NATIVE = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"

GOCLIENT = shutil.which("goclient") or "/usr/local/bin/goclient"


def run_goclient(mode, host, port, commands, **job):
    """The program's lines for ``mode``: credentials in the environment, never on its command line."""
    job = {"host": host, "port": port, "username_env": "GO_USER", "password_env": "GO_PASS",
           "commands": commands, "warmup": 1, "iterations": 2, "timeout_s": 30, **job}
    env = dict(os.environ, GO_USER=USERNAME, GO_PASS=PASSWORD)
    done = subprocess.run([GOCLIENT, mode], input=json.dumps(job) + "\n", capture_output=True,
                          text=True, env=env, timeout=180)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["event"] == "ready", lines[0]
    assert lines[0]["version"].startswith("scrapligo v1."), lines[0]
    assert lines[-1] == {"event": "done", "ok": True}, lines[-1]
    iterations = lines[1:-1]
    assert [line["index"] for line in iterations] == [1, 2, 3]
    assert [bool(line.get("warmup")) for line in iterations] == [True, False, False]
    for line in iterations:
        assert line["ok"], line.get("error")
        assert 0 < line["start_ns"] < line["end_ns"]
        assert line["wall_ns"] > 0
    return iterations


def test_version():
    out = subprocess.run([GOCLIENT, "version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("scrapligo v1.") and "(go1." in out


def test_pty_fresh():
    for line in run_goclient("ssh/pty-fresh", HOST, 22, ["show version", "show clock"]):
        version, clock = line["outputs"]
        assert "Cisco IOS XE Software" in version
        assert clock.strip()
        assert not any(o.lstrip().startswith("%") for o in line["outputs"])
        assert set(line["phases_ms"]) == {"connect", "commands", "close"}


@pytest.mark.parametrize("host,framing", [(HOST, "1.1"), (HOST, "1.0"), (HOST10, "1.0")],
                         ids=["base1.1-chunked", "base1.0-eom-asked", "base1.0-only"])
@pytest.mark.parametrize("mode", ["netconf/fresh-session", "netconf/reuse-session"])
def test_netconf_get(mode, host, framing):
    for line in run_goclient(mode, host, 830, ["a", "b"], framing=framing, reply_bytes=2048):
        assert len(line["replies"]) == 2
        for reply in line["replies"]:
            assert f'message-id="{reply["message_id"]}"' in reply["text"]
            assert "<data" in reply["text"] and "rpc-error" not in reply["text"]
            assert "urn:transport-lab:payload" in reply["text"]


def loopback_description():
    """Loopback0's running description, read with ncclient."""
    with manager.connect(host=HOST, port=830, username=USERNAME, password=PASSWORD, hostkey_verify=False,
                         look_for_keys=False, allow_agent=False, timeout=30) as m:
        reply = m.get_config(source="running", filter=("subtree", f"""<native xmlns="{NATIVE}"><interface>
            <Loopback><name>0</name><description/></Loopback></interface></native>"""))
    found = etree.fromstring(reply.data_xml.encode()).find(f".//{{{NATIVE}}}description")
    return None if found is None else found.text


@pytest.mark.parametrize("framing", ["1.1", "1.0"])
def test_netconf_edit_commit_restores_the_description(framing):
    before = loopback_description()
    for line in run_goclient("netconf/edit-commit", HOST, 830, ["a", "b"], framing=framing):
        # Two edits and the commit, each answered <ok/>.
        assert [reply["expect"] for reply in line["replies"]] == ["<ok", "<ok", "<ok"]
        assert all("<ok/>" in reply["text"] for reply in line["replies"])
    # The program restored the description when its input ended (it said done).
    assert loopback_description() == before


def test_credentials_never_on_the_command_line():
    job = {"host": HOST, "port": 22, "username_env": "GO_USER", "password_env": "UNSET_VARIABLE",
           "commands": ["show clock"], "iterations": 1, "timeout_s": 10}
    done = subprocess.run([GOCLIENT, "ssh/pty-fresh"], input=json.dumps(job) + "\n", capture_output=True,
                          text=True, env=dict(os.environ, GO_USER=USERNAME), timeout=60)
    assert done.returncode == 1
    assert json.loads(done.stdout) == {"event": "error", "ok": False,
                                       "error": "environment variable UNSET_VARIABLE not set"}
