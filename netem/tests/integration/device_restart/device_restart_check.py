"""Scripted check, on the Docker host: a device restart must not leave the lab unimpaired.

Starts a device-like container (TCP server on port 22), the netem image as its sidecar exactly as
the lab runs it (--network container:<device>, NET_ADMIN, --restart unless-stopped, a state file in
its own filesystem) and a client container (device and client from the netem test image, which has
the test bed's probes), then:
  1. takes the run lock and applies `continental` (70 ms) with its token, as a benchmark would
     (a change without the token must be refused), and checks the RTT;
  2. restarts the device container (new network namespace);
  3. requires the sidecar to exit non-zero with a CRITICAL log line, be restarted by Docker into the
     device's new namespace, re-apply `continental` (not its initial NETEM_PROFILE=regional) and the
     RTT to be 70 ms again; and requires a runner to be able to tell: a new instance, whose history
     starts with `started` and then the re-applied profile, and no run lock (the old token's renew
     is 404). Prints how long the port was reachable without impairment.
Only its own containers and network (198.19.250.0/24) are touched; everything is removed at the end.
usage: python3 netem/tests/integration/device_restart/device_restart_check.py
         [--image transport-lab/netem:dev] [--testbed-image IMAGE]
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

NETWORK = "tl-netem-restart"
SUBNET = "198.19.250.0/24"
DEVICE_IP = "198.19.250.10"
DEVICE, NETEM, CLIENT = "tl-nr-device", "tl-nr-netem", "tl-nr-client"
INITIAL, APPLIED = ("regional", 30.0), ("continental", 70.0)
TOLERANCE_MS = 3.0
TIMEOUT_S = 60
TESTBED = "/opt/netem/bench/testbed.py"  # in the test image

HTTP = """
import sys, urllib.error, urllib.request
method, url, body, token = sys.argv[1:5]
headers = {"Content-Type": "application/json", **({"X-Netem-Lock": token} if token else {})}
r = urllib.request.Request(url, data=body.encode() or None, method=method, headers=headers)
try:
    with urllib.request.urlopen(r, timeout=5) as resp:
        print(resp.status)
        print(resp.read().decode())
except urllib.error.HTTPError as e:
    print(e.code)
    print(e.read().decode())
"""


def docker(*args: str, check: bool = True) -> str:
    result = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=120)
    if check and result.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout.strip()


def call(method: str, path: str, body: dict | None = None, token: str = "") -> tuple[int, dict]:
    out = docker(
        "exec",
        CLIENT,
        "python3",
        "-c",
        HTTP,
        method,
        f"http://{DEVICE_IP}:8181{path}",
        json.dumps(body) if body is not None else "",
        token,
    )
    status, _, text = out.partition("\n")
    return int(status), json.loads(text)


def api(method: str, path: str, body: dict | None = None, token: str = "") -> dict:
    status, reply = call(method, path, body, token)
    if status != 200:
        raise RuntimeError(f"{method} {path}: HTTP {status}: {reply}")
    return reply


def connect_rtt_ms(count: int = 10) -> float:
    out = docker(
        "exec",
        CLIENT,
        "python3",
        TESTBED,
        "probe",
        "connect",
        DEVICE_IP,
        "22",
        str(count),
    )
    return statistics.median(json.loads(out))


def inspect(name: str, template: str) -> str:
    return docker("inspect", "-f", template, name)


def wait_for(what: str, condition, timeout_s: float = TIMEOUT_S) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        try:
            if condition():
                return time.monotonic() - start
        except (RuntimeError, ValueError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def check_rtt(expected_ms: float) -> float:
    rtt = connect_rtt_ms()
    print(f"  connect RTT p50 {rtt:.2f} ms (profile {expected_ms:g} ms)")
    assert expected_ms <= rtt <= expected_ms + TOLERANCE_MS, (
        f"RTT {rtt:.2f} ms, expected {expected_ms:g} ms"
    )
    return rtt


def cleanup() -> None:
    for name in (NETEM, CLIENT, DEVICE):
        docker("rm", "-f", name, check=False)
    docker("network", "rm", NETWORK, check=False)


def run(image: str, testbed_image: str) -> dict:
    docker("network", "create", "--subnet", SUBNET, NETWORK)
    docker(
        "run",
        "-d",
        "--name",
        DEVICE,
        "--network",
        NETWORK,
        "--ip",
        DEVICE_IP,
        "--init",
        "--sysctl",
        "net.ipv4.conf.all.rp_filter=0",  # as compose.yaml's device (nfq's detour)
        "--entrypoint",
        "python3",
        testbed_image,
        TESTBED,
        "serve",
        "22",
    )
    docker(
        "run",
        "-d",
        "--name",
        CLIENT,
        "--network",
        NETWORK,
        "--init",
        "--entrypoint",
        "sleep",
        testbed_image,
        "infinity",
    )
    docker(
        "run",
        "-d",
        "--name",
        NETEM,
        "--network",
        f"container:{DEVICE}",
        "--cap-add",
        "NET_ADMIN",
        "--cap-add",
        "SYS_NICE",
        "--restart",
        "unless-stopped",
        "-e",
        "NETEM_ENGINE=nfq",
        "-e",
        f"NETEM_PROFILE={INITIAL[0]}",
        "-e",
        "NETEM_PORTS=22",
        "-e",
        "NETEM_WATCHDOG_INTERVAL_S=1",
        image,
    )
    wait_for("netem healthy", lambda: api("GET", "/healthz")["ok"])
    first = api("GET", "/profile")["instance"]
    lease = api("POST", "/lock", {"owner": "device_restart_check", "ttl_s": 600})
    print(f"sidecar up with {INITIAL[0]} (instance {first}); run lock taken; applying {APPLIED[0]}")
    assert call("PUT", f"/profile/{APPLIED[0]}")[0] == 423, (
        "a change without the lock's token was accepted"
    )
    api("PUT", f"/profile/{APPLIED[0]}", token=lease["token"])
    before = check_rtt(APPLIED[1])
    device_pid = inspect(DEVICE, "{{.State.Pid}}")

    print("restarting the device container")
    restarted_at = time.monotonic()
    docker("restart", "-t", "2", DEVICE)
    assert inspect(DEVICE, "{{.State.Pid}}") != device_pid
    wait_for("netem restarted by Docker", lambda: int(inspect(NETEM, "{{.RestartCount}}")) >= 1)
    wait_for("netem healthy again", lambda: api("GET", "/healthz")["ok"])
    recovered_s = time.monotonic() - restarted_at
    profile = api("GET", "/profile")
    assert profile["profile"]["name"] == APPLIED[0], (
        f"re-applied {profile['profile']['name']}, not {APPLIED[0]}"
    )
    assert "NFQUEUE" in profile["readback"]["iptables"]
    # What a runner checks: samples taken across a restart are void, and its lease is gone.
    assert profile["instance"] != first, f"instance {first} unchanged after the restart"
    events = [(e["event"], e["profile"]) for e in api("GET", "/profile/history")["events"]]
    assert events[:2] == [("started", None), ("applied", APPLIED[0])], events
    assert api("GET", "/lock")["holder"] is None
    assert call("PUT", f"/lock/{lease['token']}")[0] == 404, "the run lock survived the restart"
    print(f"  instance {first} -> {profile['instance']}, history {events}, run lock gone")
    after = check_rtt(APPLIED[1])

    logs = subprocess.run(["docker", "logs", NETEM], capture_output=True, text=True).stderr
    critical = [line for line in logs.splitlines() if "CRITICAL" in line]
    restarted = [line for line in logs.splitlines() if "RESTARTED" in line]
    assert any("has vanished" in line for line in critical), logs[-3000:]
    assert restarted, logs[-3000:]
    for line in (*critical, *restarted):
        print("  log:", line[:220])
    result = {
        "profile": APPLIED[0],
        "rtt_before_ms": round(before, 2),
        "rtt_after_ms": round(after, 2),
        "netem_restart_count": int(inspect(NETEM, "{{.RestartCount}}")),
        "instances": [first, profile["instance"]],
        "seconds_from_device_restart_to_reapplied": round(recovered_s, 1),
    }
    print("PASS", json.dumps(result))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", default="transport-lab/netem:dev", help="the sidecar")
    parser.add_argument(
        "--testbed-image", default="transport-lab/netem-test:dev", help="device and client"
    )
    args = parser.parse_args()
    cleanup()
    try:
        run(args.image, args.testbed_image)
    except AssertionError as exc:
        print(f"FAIL: {exc}", file=sys.stderr)
        print(docker("logs", "--tail", "40", NETEM, check=False), file=sys.stderr)
        return 1
    finally:
        cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
