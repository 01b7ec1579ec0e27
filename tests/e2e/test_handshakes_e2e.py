"""What every connection negotiated, for every client (the smoke plan at `local`), and the
SSH side of it against what the device's sshd logged for the same connections.

sshd logs the negotiated algorithms only at LogLevel DEBUG1 (`kex: algorithm: ...`). The test
lab's device runs it so, into a file of a volume this container mounts read-only
(compose.test.yaml, DEVICE_SSHD_DEBUG_LOG); conftest keeps what sshd wrote while each run
ran. The log names no process and no time, so its connections are told apart by the client's
identification (`remote software version paramiko_5.1.0`) that precedes each connection's
`kex:` lines: modes run one after the other, so two clients' connections never interleave
(the connections of one client may, and they negotiate alike).
"""

import csv
import re
from collections import Counter
from typing import Any

from bench_runner.modes.catalog import FLOOR_CLIENTS, LIBRARIES
from conftest import RESULTS_DIR, BenchRun, influx_query

SSH_TRANSPORTS = {"ssh", "netconf", "tunnel"}
QUIC_TRANSPORTS = {"h3"}
SSH_NEGOTIATED = (
    "ssh_kex",
    "ssh_host_key",
    "ssh_cipher_cs",
    "ssh_cipher_sc",
    "ssh_mac_cs",
    "ssh_mac_sc",
)
SSH_PARAMETERS = {*SSH_NEGOTIATED, "ssh_client_id", "ssh_server_id"}
TLS_PARAMETERS = {
    "tls_version",
    "tls_cipher",
    "tls_group",
    "tls_alpn",
    "tls_resumed",
    "tls_hello_retry",
}
QUIC_PARAMETERS = {*TLS_PARAMETERS, "tls_early_data"}
ALPN_REPORTED_BY = {"httpx", "requests", "quic-go", "aioquic"}
"""httpx and requests offer http/1.1 and report what nginx selected, the HTTP/3 libraries what
the device's QUIC server selected; python-ssl offers nothing, curl offers only h3 (which a QUIC
handshake cannot complete without)."""
IDENTIFICATION_PREFIX = "SSH-2.0-"
SSHD_SOFTWARE_CHARS = 100
"""sshd logs the client's software version cut to 100 characters."""
SOFTWARE = re.compile(r"remote software version (.*?)\r?$")
KEX = re.compile(r"kex: (algorithm|host key algorithm): (\S+)")
CIPHER = re.compile(r"kex: (client->server|server->client) cipher: (\S+) MAC: (\S+)")

Negotiated = dict[str, dict[str, set[str]]]
"""Client software -> parameter -> the values its connections negotiated."""


def _modes(run: BenchRun) -> list[dict[str, Any]]:
    modes: list[dict[str, Any]] = run.results["modes"]
    return modes


def test_every_client_records_what_each_connection_negotiated(smoke_run: BenchRun) -> None:
    assert {mode["client"] for mode in _modes(smoke_run)} == {*FLOOR_CLIENTS, *LIBRARIES}
    for mode in _modes(smoke_run):
        key = (mode["mode"], mode["client"])
        handshakes = mode["handshakes"]
        assert handshakes["available"], (key, handshakes["reason"])
        assert handshakes["connections"] >= 1, key
        assert handshakes["incomplete"] == {}, key
        assert handshakes["capture_drops"] == 0, key
        ssh = mode["transport"] in SSH_TRANSPORTS
        parameters = handshakes["parameters"]
        quic = mode["transport"] in QUIC_TRANSPORTS
        expected = SSH_PARAMETERS if ssh else QUIC_PARAMETERS if quic else TLS_PARAMETERS
        assert set(parameters) == expected, key
        for name, parameter in parameters.items():
            # The library reports ALPN for the same connections the wire saw.
            assert sum(parameter["values"].values()) == handshakes["connections"], (key, name)
            assert "none in common" not in parameter["values"], (key, name)
        varied = [name for name, item in parameters.items() if len(item["values"]) > 1]
        assert handshakes["varied"] == varied, key
        if not ssh:
            _check_tls(mode)


def _check_tls(mode: dict[str, Any]) -> None:
    key = (mode["mode"], mode["client"])
    parameters = mode["handshakes"]["parameters"]
    connections = mode["handshakes"]["connections"]
    alpn = parameters["tls_alpn"]
    quic = mode["transport"] in QUIC_TRANSPORTS
    if mode["client"] == "grpc-go":  # gRPC runs over HTTP/2 only
        assert (alpn["values"], alpn["source"]) == ({"h2": connections}, "library"), key
    elif mode["client"] == "pygnmi":
        # pygnmi reads the device's certificate over a TLS connection of its own (no ALPN)
        # before it opens the gRPC channel, whose ALPN grpcio does not expose.
        half = connections // 2
        expected = {"not exposed by pygnmi": half, "not offered": half}
        assert (alpn["values"], alpn["source"]) == (expected, "wire"), key
    elif mode["client"] == "gnmi_cli":
        expected = {"not exposed by gnmi_cli": connections}
        assert (alpn["values"], alpn["source"]) == (expected, "wire"), key
    elif mode["client"] in ALPN_REPORTED_BY:
        selected = "h3" if quic else "http/1.1"
        assert (alpn["values"], alpn["source"]) == ({selected: connections}, "library"), key
    elif quic:  # offered h3 alone: no QUIC handshake completes without it
        assert (alpn["values"], alpn["source"]) == ({"h3": connections}, "wire"), key
    else:
        assert (alpn["values"], alpn["source"]) == ({"not offered": connections}, "wire"), key
    assert parameters["tls_version"]["values"] == {"TLSv1.3": connections}, key
    if mode["mode"] in ("https/tls-resume", "h3/resumed", "h3/0rtt"):
        # The first ticket's full handshake, then every connection resumes it.
        assert parameters["tls_resumed"]["values"] == {"false": 1, "true": connections - 1}
    else:
        assert parameters["tls_resumed"]["values"] == {"false": connections}, key
    if mode["mode"] == "h3/0rtt":
        # The ticket's full handshake sends no early data; a resumed connection sends its
        # request as 0-RTT when quic-go writes it before the server's handshake flight
        # arrives. At `local` that flight takes a tenth of a millisecond, and a runner
        # descheduled as long writes the request as 1-RTT, which the wire reports (2 of 9
        # connections in a fresh-clone run on 2026-11-28); the client itself fails any
        # connection whose early data the server did not accept.
        early = parameters["tls_early_data"]["values"]
        assert set(early) <= {"sent", "not sent"}, (key, early)
        assert early.get("not sent", 0) >= 1, (key, early)
        assert early.get("sent", 0) >= 1, (key, early)
    elif quic:
        assert parameters["tls_early_data"]["values"] == {"not sent": connections}, key


def test_the_csv_and_influxdb_carry_them(smoke_run: BenchRun) -> None:
    with (RESULTS_DIR / smoke_run.run_id / "modes.csv").open() as handle:
        rows = {(row["mode"], row["client"], row["series"]): row for row in csv.DictReader(handle)}
    stored = {
        series["tags"]["series"]: series["tags"]
        for series in influx_query(
            'SELECT last("handshakes") FROM "mode_summary" '
            f"WHERE \"run_id\" = '{smoke_run.run_id}' GROUP BY *"
        )
    }
    for mode in _modes(smoke_run):
        row = rows[(mode["mode"], mode["client"], mode["series"])]
        tags = stored[mode["series"]]
        assert int(row["handshakes"]) == mode["handshakes"]["connections"]
        for name, parameter in mode["handshakes"]["parameters"].items():
            joined = "|".join(sorted(parameter["values"]))
            assert row[name] == joined, (mode["series"], name)
            if not name.endswith("_id"):
                assert tags[name] == joined, (mode["series"], name)


def _sshd_negotiated(log: str) -> tuple[Negotiated, Counter[str]]:
    """What sshd logged, per client software, and how many connections each made."""
    negotiated: Negotiated = {}
    connections: Counter[str] = Counter()
    software = None
    for line in log.splitlines():
        line = line.removesuffix(" [preauth]")
        if found := SOFTWARE.search(line):
            software = found.group(1)
            connections[software] += 1
        elif software is not None and (found := KEX.search(line)):
            name = "ssh_kex" if found.group(1) == "algorithm" else "ssh_host_key"
            negotiated.setdefault(software, {}).setdefault(name, set()).add(found.group(2))
        elif software is not None and (found := CIPHER.search(line)):
            direction = "cs" if found.group(1) == "client->server" else "sc"
            values = negotiated.setdefault(software, {})
            values.setdefault(f"ssh_cipher_{direction}", set()).add(found.group(2))
            values.setdefault(f"ssh_mac_{direction}", set()).add(found.group(3))
    return negotiated, connections


def _recorded(run: BenchRun) -> tuple[Negotiated, Counter[str]]:
    """What results.json says the same clients negotiated, keyed as sshd names them."""
    negotiated: Negotiated = {}
    connections: Counter[str] = Counter()
    for mode in _modes(run):
        if mode["transport"] not in SSH_TRANSPORTS:
            continue
        parameters = mode["handshakes"]["parameters"]
        [identification] = parameters["ssh_client_id"]["values"]
        software = identification.removeprefix(IDENTIFICATION_PREFIX)[:SSHD_SOFTWARE_CHARS]
        connections[software] += mode["handshakes"]["connections"]
        for name in SSH_NEGOTIATED:
            negotiated.setdefault(software, {}).setdefault(name, set()).update(
                parameters[name]["values"]
            )
    return negotiated, connections


def test_recorded_key_exchanges_are_what_sshd_logged(smoke_run: BenchRun) -> None:
    assert smoke_run.sshd_log is not None, (
        "no sshd debug log: the test lab's device writes it (compose.test.yaml, "
        "DEVICE_SSHD_DEBUG_LOG) into a volume this container mounts"
    )
    logged, logged_connections = _sshd_negotiated(smoke_run.sshd_log)
    recorded, recorded_connections = _recorded(smoke_run)
    # OpenSSH, paramiko, asyncssh, libssh2, libssh and Go's: every SSH library the lab drives.
    assert len(recorded) >= 6, sorted(recorded)
    assert recorded == logged
    assert recorded_connections == logged_connections
