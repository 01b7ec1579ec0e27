"""Fleet load figures (make bench-device-fleet): one container presenting FLEET_SIZE emulated devices.

Run in the real-client image next to two device containers on a private network (run.sh fleet-bench):
DEVICE_HOST, a fleet of one, and FLEET_HOST, a fleet of FLEET_SIZE on FLEET_ADDRESSES (its netem sidecar
puts the addresses on the shared interface, as compose does). Phases (CPU cores and memory of the device
containers from their own /metrics):
  idle                 both containers, no session, for BENCH_SECONDS: the idle cost of an emulated device
                       is the difference divided by FLEET_SIZE - 1
  ssh_sessions_held    BENCH_SESSIONS interactive SSH sessions (asyncssh, PTY) spread evenly over the fleet's
                       devices, each proven by `show clock` and by its prompt being its device's hostname; the
                       device's per-device gauge must count each device's share
  every_device_once    on every device: SSH exec of the smoke plan's commands, the same over HTTPS, and a
                       NETCONF <get-config> whose hostname is the device's own; 8 devices at a time
The client runs on the same cores as the devices, so figures are lower bounds of the device's capacity.
"""

import asyncio
import base64
import ipaddress
import json
import os
import re
import ssl
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import asyncssh
import paramiko

SINGLE = os.environ.get("DEVICE_HOST", "device")
FLEET_HOST = os.environ.get("FLEET_HOST", "fleet")
USER, PASSWORD = os.environ["DEVICE_USERNAME"], os.environ["DEVICE_PASSWORD"]
SESSIONS = int(os.environ.get("BENCH_SESSIONS", "1000"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "10"))
_BLOCK = ipaddress.IPv4Network(os.environ["FLEET_ADDRESSES"])
FLEET = [(f"fleet-r{k}", str(_BLOCK.network_address + k)) for k in range(1, int(os.environ["FLEET_SIZE"]) + 1)]
SMOKE_COMMANDS = ["show version", "show clock"]  # bench-runner/src/bench_runner/plans/smoke.yaml


def metrics(host):
    return urllib.request.urlopen(f"http://{host}:9100/metrics", timeout=10).read().decode()


def value(text, series):
    m = re.search(rf"^{re.escape(series)} ([0-9.e+]+)$", text, re.M)
    return float(m.group(1)) if m else float("nan")


class Usage:
    """A container's CPU cores used and memory over a with-block."""

    def __init__(self, host):
        self.host = host

    def __enter__(self):
        self.cpu0 = value(metrics(self.host), "device_container_cpu_seconds_total")
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.wall = time.monotonic() - self.t0
        self.text = metrics(self.host)
        self.cores = (value(self.text, "device_container_cpu_seconds_total") - self.cpu0) / self.wall
        self.mib = value(self.text, "device_container_memory_bytes") / 2**20


results = []


def record(phase, usage, **figures):
    row = {"phase": phase, **figures, "device_cpu_cores": round(usage.cores, 3),
           "device_memory_mib": round(usage.mib, 1), "wall_s": round(usage.wall, 1)}
    results.append(row)
    print(json.dumps(row), flush=True)


def idle():
    with Usage(SINGLE) as single, Usage(FLEET_HOST) as fleet:
        time.sleep(SECONDS)
    record("idle", single, devices=1)
    record("idle", fleet, devices=len(FLEET))
    extra = len(FLEET) - 1
    print(json.dumps({"idle_per_extra_device": {"memory_mib": round((fleet.mib - single.mib) / extra, 3),
                                                "cpu_cores": round((fleet.cores - single.cores) / extra, 5)}}))


async def held_sessions():
    gate = asyncio.Semaphore(40)  # opening rate, not a cap on sessions held
    held, errors = [], []

    async def open_one(name, address):
        async with gate:
            conn = await asyncssh.connect(address, username=USER, password=PASSWORD, known_hosts=None,
                                          client_keys=None, login_timeout=60)
            proc = await conn.create_process(term_type="vt100")
            banner = await asyncio.wait_for(proc.stdout.readuntil("#"), 60)
            if not banner.endswith(f"{name}#"):
                raise AssertionError(f"{address}: prompt {banner[-40:]!r}, not {name}#")
            held.append((conn, proc, name))

    with Usage(FLEET_HOST) as usage:
        targets = [FLEET[i % len(FLEET)] for i in range(SESSIONS)]
        outcomes = await asyncio.gather(*(open_one(*t) for t in targets), return_exceptions=True)
        errors += [repr(o) for o in outcomes if isinstance(o, BaseException)]
        opened = time.monotonic() - usage.t0

        async def prove(proc, name):
            proc.stdin.write("show clock\n")
            out = await asyncio.wait_for(proc.stdout.readuntil(f"{name}#"), 60)
            assert "UTC" in out, out

        proofs = await asyncio.gather(*(prove(proc, name) for _, proc, name in held), return_exceptions=True)
        errors += [repr(o) for o in proofs if isinstance(o, BaseException)]
    text = usage.text
    per_device = [value(text, f'device_fleet_sessions_open{{device="{name}",transport="ssh"}}') for name, _ in FLEET]
    expected = [SESSIONS // len(FLEET) + (1 if i < SESSIONS % len(FLEET) else 0) for i in range(len(FLEET))]
    miscounted = [FLEET[i][0] for i, (got, want) in enumerate(zip(per_device, expected, strict=True)) if got != want]
    record("ssh_sessions_held", usage, devices=len(FLEET), sessions=SESSIONS,
           held=int(value(text, 'device_sessions_open{transport="ssh"}')), errors=len(errors),
           devices_miscounted=len(miscounted), open_all_s=round(opened, 1), first_errors=errors[:3] + miscounted[:3])
    for conn, _, _ in held:
        conn.close()
    await asyncio.gather(*(c.wait_closed() for c, _, _ in held), return_exceptions=True)


def https_exec(address, command):
    tls = ssl.create_default_context()
    tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    request = urllib.request.Request(f"https://{address}/admin/exec/{command.replace(' ', '+')}",
                                     headers={"Authorization": f"Basic {token}"})
    with urllib.request.urlopen(request, context=tls, timeout=30) as response:
        return response.read().decode()


GET_HOSTNAME = ('<native xmlns="http://cisco.com/ns/yang/Cisco-IOS-XE-native"><hostname/></native>')


def one_device(name, address):
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(address, username=USER, password=PASSWORD, look_for_keys=False, allow_agent=False)
    try:
        _, stdout, _ = client.exec_command("\n".join(SMOKE_COMMANDS))
        assert f"{name} uptime is" in stdout.read().decode()
    finally:
        client.close()
    for command in SMOKE_COMMANDS:
        https_exec(address, command)
    assert f"{name} uptime is" in https_exec(address, "show version")
    netconf = paramiko.SSHClient()
    netconf.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    netconf.connect(address, port=830, username=USER, password=PASSWORD, look_for_keys=False, allow_agent=False)
    try:
        chan = netconf.get_transport().open_session()
        chan.invoke_subsystem("netconf")
        buf = b""
        while b"]]>]]>" not in buf:
            buf += chan.recv(65536)
        rpc = (f'<rpc message-id="1" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><get-config><source>'
               f'<running/></source><filter type="subtree">{GET_HOSTNAME}</filter></get-config></rpc>').encode()
        chan.sendall(b'<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities><capability>'
                     b'urn:ietf:params:netconf:base:1.0</capability></capabilities></hello>]]>]]>' + rpc + b"]]>]]>")
        buf = b""
        while b"]]>]]>" not in buf:
            data = chan.recv(65536)
            if not data:
                raise EOFError(f"{address}: NETCONF session closed")
            buf += data
        assert f"<hostname>{name}</hostname>".encode() in buf, buf[:200]
    finally:
        netconf.close()


def every_device_once():
    with Usage(FLEET_HOST) as usage, ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(one_device, name, address) for name, address in FLEET]
        errors = [repr(f.exception()) for f in futures if f.exception() is not None]
    record("every_device_once", usage, devices=len(FLEET), errors=len(errors), first_errors=errors[:3])


def main():
    idle()
    asyncio.run(held_sessions())
    time.sleep(2)  # let the held sessions' processes exit
    every_device_once()
    print("\n| phase | devices | figure | errors | device CPU (cores) | device memory (MiB) |\n|---|---|---|---|---|---|")
    for r in results:
        figure = {"idle": f"{r['wall_s']} s, no session",
                  "ssh_sessions_held": f"{r.get('held')} of {r.get('sessions')} held (all open in {r.get('open_all_s')} s)",
                  "every_device_once": f"all {r['devices']} devices in {r['wall_s']} s"}[r["phase"]]
        print(f"| {r['phase']} | {r['devices']} | {figure} | {r.get('errors', 0)} | {r['device_cpu_cores']} "
              f"| {r['device_memory_mib']} |")
    failed = sum(r.get("errors", 0) + r.get("devices_miscounted", 0) for r in results)
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
