"""Device load figures (make bench-device): run in the real-client image next to one device.

Phases (each reports the device container's CPU cores used and memory, from its /metrics):
  ssh_sessions_held    BENCH_SESSIONS concurrent interactive SSH sessions (asyncssh, PTY), each proven by a command
  ssh_new_conn_per_s   connect + auth + exec "show clock" + close, 8 in parallel, for BENCH_SECONDS
  https_keepalive_rps  GET /admin/exec/show+clock on keep-alive TLS connections, 8 in parallel
  netconf_rpc_per_s    <get-config> on 4 NETCONF sessions (base:1.1 chunked framing), request/reply in lockstep
                       over raw paramiko subsystem channels (ncclient polls every 100 ms and would measure itself)
The client runs on the same cores as the device, so figures are lower bounds of the device's capacity.
"""

import asyncio
import base64
import http.client
import json
import os
import re
import ssl
import threading
import time
import urllib.request

import asyncssh
import paramiko

HOST = os.environ.get("DEVICE_HOST", "device")
USER, PASSWORD = os.environ["DEVICE_USERNAME"], os.environ["DEVICE_PASSWORD"]
SESSIONS = int(os.environ.get("BENCH_SESSIONS", "500"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "10"))


def device_stats():
    text = urllib.request.urlopen(f"http://{HOST}:9100/metrics", timeout=10).read().decode()

    def value(name):
        m = re.search(rf"^{re.escape(name)} ([0-9.e+]+)$", text, re.M)
        return float(m.group(1)) if m else float("nan")

    return value("device_container_cpu_seconds_total"), value("device_container_memory_bytes"), text


class Phase:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.cpu0, _, _ = device_stats()
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.wall = time.monotonic() - self.t0
        cpu1, self.mem, self.metrics = device_stats()
        self.cores = (cpu1 - self.cpu0) / self.wall


results = []


def record(phase, **figures):
    row = {"phase": phase.name, **figures, "device_cpu_cores": round(phase.cores, 2),
           "device_memory_mib": round(phase.mem / 2**20, 1), "wall_s": round(phase.wall, 1)}
    results.append(row)
    print(json.dumps(row), flush=True)


async def held_sessions():
    gate = asyncio.Semaphore(40)  # opening rate, not a cap on sessions held
    errors, conns = [], []

    async def open_one():
        async with gate:
            conn = await asyncssh.connect(HOST, username=USER, password=PASSWORD, known_hosts=None, client_keys=None,
                                          login_timeout=60)
            proc = await conn.create_process(term_type="vt100")
            await asyncio.wait_for(proc.stdout.readuntil("#"), 60)
            conns.append((conn, proc))

    with Phase("ssh_sessions_held") as p:
        outcomes = await asyncio.gather(*(open_one() for _ in range(SESSIONS)), return_exceptions=True)
        errors += [repr(o) for o in outcomes if isinstance(o, BaseException)]
        opened = time.monotonic() - p.t0

        async def prove(proc):
            proc.stdin.write("show clock\n")
            out = await asyncio.wait_for(proc.stdout.readuntil("#"), 60)
            assert "UTC" in out

        proofs = await asyncio.gather(*(prove(proc) for _, proc in conns), return_exceptions=True)
        errors += [repr(o) for o in proofs if isinstance(o, BaseException)]
        held = re.search(r'^device_sessions_open\{transport="ssh"\} (\d+)', device_stats()[2], re.M)
    record(p, sessions=SESSIONS, held=int(held.group(1)) if held else None, errors=len(errors),
           open_all_s=round(opened, 1), first_errors=errors[:3])
    for conn, _ in conns:
        conn.close()
    await asyncio.gather(*(c.wait_closed() for c, _ in conns), return_exceptions=True)


async def new_connections():
    done, errors = 0, 0
    deadline = time.monotonic() + SECONDS

    async def worker():
        nonlocal done, errors
        while time.monotonic() < deadline:
            try:
                async with asyncssh.connect(HOST, username=USER, password=PASSWORD, known_hosts=None,
                                            client_keys=None) as conn:
                    r = await conn.run("show clock", check=True)
                    assert "UTC" in r.stdout
                done += 1
            except Exception:  # noqa: BLE001 - counted
                errors += 1

    with Phase("ssh_new_conn_per_s") as p:
        await asyncio.gather(*(worker() for _ in range(8)))
    record(p, per_s=round(done / p.wall, 1), connections=done, errors=errors)


def threaded(name, workers, setup, call, teardown):
    counts, errors = [0] * workers, [0] * workers
    deadline = time.monotonic() + SECONDS

    def run(i):
        ctx = setup()
        try:
            while time.monotonic() < deadline:
                try:
                    call(ctx)
                    counts[i] += 1
                except Exception:  # noqa: BLE001 - counted
                    errors[i] += 1
        finally:
            teardown(ctx)

    with Phase(name) as p:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return p, sum(counts), sum(errors)


def https_keepalive():
    tls = ssl.create_default_context()
    tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE
    auth = {"Authorization": "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()}

    def call(conn):
        conn.request("GET", "/admin/exec/show+clock", headers=auth)
        resp = conn.getresponse()
        body = resp.read()
        assert resp.status == 200 and b"UTC" in body

    p, n, errors = threaded("https_keepalive_rps", 8, lambda: http.client.HTTPSConnection(HOST, 443, context=tls, timeout=30),
                            call, lambda c: c.close())
    record(p, per_s=round(n / p.wall, 1), requests=n, errors=errors)


HELLO = (b'<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities><capability>'
         b'urn:ietf:params:netconf:base:1.1</capability></capabilities></hello>]]>]]>')
GET_CONFIG = (b'<rpc message-id="1" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">'
              b'<get-config><source><running/></source></get-config></rpc>')


class RawNetconf:
    def __init__(self):
        self.client = paramiko.SSHClient()
        self.client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        self.client.connect(HOST, port=830, username=USER, password=PASSWORD, look_for_keys=False, allow_agent=False)
        self.chan = self.client.get_transport().open_session()
        self.chan.invoke_subsystem("netconf")
        self.buf = b""
        while b"]]>]]>" not in self.buf:
            self.buf += self.chan.recv(65536)
        self.buf = b""
        self.chan.sendall(HELLO)

    def get_config(self):
        self.chan.sendall(b"\n#%d\n%s\n##\n" % (len(GET_CONFIG), GET_CONFIG))
        while b"\n##\n" not in self.buf:
            data = self.chan.recv(65536)
            if not data:
                raise EOFError("session closed")
            self.buf += data
        reply, _, self.buf = self.buf.partition(b"\n##\n")
        assert b"<hostname>" in reply

    def close(self):
        self.client.close()


def netconf_rpcs():
    p, n, errors = threaded("netconf_rpc_per_s", 4, RawNetconf, lambda s: s.get_config(), lambda s: s.close())
    record(p, per_s=round(n / p.wall, 1), rpcs=n, errors=errors)


def main():
    asyncio.run(held_sessions())
    time.sleep(2)  # let the held sessions' processes exit
    asyncio.run(new_connections())
    https_keepalive()
    netconf_rpcs()
    print("\n| phase | figure | errors | device CPU (cores) | device memory (MiB) |\n|---|---|---|---|---|")
    for r in results:
        figure = (f"{r['held']} of {r['sessions']} held (all open in {r['open_all_s']} s)" if "held" in r
                  else f"{r['per_s']} /s")
        print(f"| {r['phase']} | {figure} | {r['errors']} | {r['device_cpu_cores']} | {r['device_memory_mib']} |")


if __name__ == "__main__":
    main()
