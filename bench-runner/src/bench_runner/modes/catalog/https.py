"""HTTPS modes against the device's API (nginx, TLS 1.3, HTTP/1.1): /admin/exec, RESTCONF
and the bulk payloads, with httpx (floor), Python's ssl module (resumption) and requests."""

from bench_runner.modes.base import NONE, ONCE, ONE_PER_COMMAND, PerIteration
from bench_runner.modes.row import ModeDefinition, Parameters, Row, plugin

FRESH = ModeDefinition(
    name="https/fresh-conn",
    summary="a new TCP + TLS connection for every command (keep-alive disabled)",
    lower_bound=PerIteration(per_command=3),
    argument=(
        "Lower bound: 3n round trips: the TCP handshake, the TLS 1.3 full handshake (1 RTT; "
        "no 0-RTT early data: Python's ssl module cannot send it) and the request itself."
    ),
    connections=ONE_PER_COMMAND,
    commands_per_request=ONCE,
)

KEEP_ALIVE = ModeDefinition(
    name="https/keep-alive",
    summary="one HTTP/1.1 keep-alive connection kept across iterations, one GET per command",
    lower_bound=ONE_PER_COMMAND,
    argument=(
        "Lower bound: n round trips (request and response per command); HTTP/1.1 clients do "
        "not pipeline."
    ),
    connections=NONE,
    commands_per_request=ONCE,
)

BATCH = ModeDefinition(
    name="https/batch-post",
    summary=(
        "all commands of an iteration in one request on a kept connection; the name comes from "
        "the original issue, the request is a GET whose path carries every command "
        "(/admin/exec/cmd1/cmd2/...), not a POST"
    ),
    lower_bound=ONCE,
    argument="Lower bound: 1 round trip per iteration: one request carries every command.",
    connections=NONE,
    commands_per_request=ONE_PER_COMMAND,
)

MULTI = ModeDefinition(
    name="https/multi-cmd",
    summary=(
        "every command of an iteration in flight at once: one GET per command, sent "
        "concurrently over a kept pool of HTTP/1.1 keep-alive connections (one per request in "
        "flight; the warm-up opens them)"
    ),
    lower_bound=ONCE,
    argument="Lower bound: 1 round trip per iteration: the requests do not depend on each other.",
    connections=NONE,
    commands_per_request=ONCE,
)

TLS_RESUME = ModeDefinition(
    name="https/tls-resume",
    summary=(
        "a new TCP connection per command whose TLS 1.3 handshake resumes the previous "
        "session with a ticket (PSK with (EC)DHE): no certificate, no signature"
    ),
    lower_bound=PerIteration(per_command=3),
    argument=(
        "Lower bound: 3n round trips, the same as https/fresh-conn: TCP, the resumed TLS 1.3 "
        "handshake (still 1 RTT; 0-RTT early data is not available from Python's ssl module), "
        "the request. What resumption saves is bytes and CPU, not round trips."
    ),
    connections=ONE_PER_COMMAND,
    commands_per_request=ONCE,
)

RESTCONF = ModeDefinition(
    name="https/restconf-get",
    summary=(
        "RESTCONF (RFC 8040) on a kept HTTP/1.1 keep-alive connection: per command of the run "
        "one GET /restconf/data/Cisco-IOS-XE-native:native (JSON, RFC 7951), each after the "
        "previous reply; the command text itself is not sent (n means what it means in the CLI "
        "modes, as in the NETCONF modes); a status other than 200 or a body that is not the "
        "native tree as JSON fails the iteration"
    ),
    lower_bound=ONE_PER_COMMAND,
    argument="Lower bound: n round trips per iteration (HTTP/1.1 clients do not pipeline).",
    connections=NONE,
    commands_per_request=ONCE,
)

BULK = ModeDefinition(
    name="https/bulk",
    summary=(
        "one download of `size` bytes per iteration (GET /bulk/10M, /100M or /1G) from the "
        "device's HTTPS API on one HTTP/1.1 keep-alive connection, opened before the warm-up "
        "(a HEAD of the same path, not measured); the commands are not used; status 200 and "
        "exactly `size` bytes, or the iteration fails. The direct counterpart of tunnel/bulk: "
        "the same payload, without the SSH channel"
    ),
    lower_bound=ONCE,
    argument=(
        "Lower bound: 1 round trip per iteration: the request and its response on the open "
        "connection (no TCP or TLS handshake, no channel to open: tunnel/bulk pays 2); the "
        "transfer time on top is the size over the path's bandwidth (TCP's window, netem's "
        "rate)."
    ),
    connections=NONE,
    commands_per_request=None,
    parameters=Parameters.BULK,
)

DEFINITIONS = (FRESH, KEEP_ALIVE, BATCH, MULTI, TLS_RESUME, RESTCONF, BULK)

ROWS = (
    # --- httpx (floor) ------------------------------------------------------------------
    Row(
        FRESH,
        "httpx",
        floor=True,
        description=(
            "httpx; a new TCP + TLS 1.3 connection per command (keep-alive disabled), "
            "GET /admin/exec/<command>"
        ),
        expected=PerIteration(per_command=3),
        evidence=(
            "Expected: 3n round trips (measured 3.2 to 3.4 per command; the fraction is "
            "TCP-level waiting inside a handshake or response, not a protocol round trip)."
        ),
        session=plugin("httpx_api:exec_gets", keep_alive=False, batch=False),
    ),
    Row(
        KEEP_ALIVE,
        "httpx",
        floor=True,
        description=(
            "httpx; one client kept across iterations (HTTP/1.1 keep-alive), "
            "one GET /admin/exec/<command> per command"
        ),
        expected=ONE_PER_COMMAND,
        evidence=(
            "Expected: n round trips (the connection is opened by the warm-up; with no warm-up "
            "the first iteration also pays 2 for TCP and TLS)."
        ),
        session=plugin("httpx_api:exec_gets", keep_alive=True, batch=False),
    ),
    Row(
        BATCH,
        "httpx",
        floor=True,
        description=(
            "httpx; kept keep-alive client, one request per iteration carrying all commands: "
            "GET /admin/exec/cmd1/cmd2/... (a GET despite the name)"
        ),
        expected=ONCE,
        evidence=(
            "Expected: 1 round trip (measured 1.0 for one command and 1.5 for the five default "
            "ones, whose ~7 KB answer arrives half an RTT after its first bytes: TCP-level "
            "waiting, not a protocol round trip)."
        ),
        session=plugin("httpx_api:exec_gets", keep_alive=True, batch=True),
    ),
    Row(
        MULTI,
        "httpx",
        floor=True,
        description=(
            "httpx; kept keep-alive pool; one GET /admin/exec/<command> per command, all "
            "commands of an iteration sent concurrently (a connection per request in flight)"
        ),
        expected=ONCE,
        evidence=(
            "Expected: 1 round trip once the pool holds a connection per command (with no "
            "warm-up, the first iteration also pays TCP and TLS for each new connection, in "
            "parallel)."
        ),
        session=plugin("httpx_api:concurrent_gets"),
    ),
    Row(
        TLS_RESUME,
        "python-ssl",
        floor=True,
        description=(
            "Python ssl + http.client; a new TCP connection per command, TLS 1.3 session "
            "resumption with the previous connection's ticket, GET /admin/exec/<command>"
        ),
        expected=PerIteration(per_command=4),
        evidence=(
            "Python's ssl module (OpenSSL) with http.client, because httpx cannot offer a "
            "saved session. Expected: 4n round trips (measured 4.0 at 30 ms, one more than "
            "https/fresh-conn with httpx; not yet attributed to a packet exchange). An "
            "iteration fails when the server did not resume the session; the first ticket is "
            "fetched before the warm-up (not measured)."
        ),
        session=plugin("python_ssl:tls_resume"),
        version=plugin("python_ssl:version"),
    ),
    Row(
        RESTCONF,
        "httpx",
        floor=True,
        description=(
            "httpx; one keep-alive client kept; per command one RESTCONF "
            "GET /restconf/data/Cisco-IOS-XE-native:native (JSON), each after the previous reply"
        ),
        expected=ONE_PER_COMMAND,
        evidence="Expected: n round trips (the connection is opened by the warm-up).",
        session=plugin("httpx_api:restconf_gets"),
    ),
    Row(
        BULK,
        "httpx",
        floor=True,
        description=(
            "httpx; one HTTP/1.1 keep-alive connection kept; per iteration one "
            "GET /bulk/<size> from the device's HTTPS API, streamed and counted "
            "(vs tunnel/bulk)"
        ),
        expected=ONCE,
        evidence=(
            "Expected: 1 round trip by the protocol, as tunnel/bulk counts its 2. Counted at "
            "30 ms: 1 round trip per iteration on the wire (the request written once, then "
            "only ACKs while the body streams in) and one RTT waiting for the headers (phase "
            "receive_headers 32 ms); the rest of the added delay (1.4 RTT for 10 MB, 4.5 for "
            "100 MB) is the transfer, TCP's window and bandwidth, not exchanges (README)."
        ),
        session=plugin("httpx_api:bulk_download"),
    ),
    # --- requests -----------------------------------------------------------------------
    Row(
        FRESH,
        "requests",
        description="requests; a new TCP + TLS connection per command (Connection: close)",
        expected=PerIteration(per_command=3),
        evidence=(
            "Expected: 3n round trips: TCP, TLS 1.3 and the request, 3 exchanges per command "
            "on the wire (README); added delay 15.4 and 18.2 for 5 commands in two runs, the "
            "excess being urllib3's CPU time."
        ),
        session=plugin("requests_api:exec_gets", keep_alive=False, batch=False),
    ),
    Row(
        KEEP_ALIVE,
        "requests",
        description="requests; one Session kept (keep-alive), one GET per command",
        expected=ONE_PER_COMMAND,
        evidence=(
            "One Session kept (keep-alive pool). Expected: n round trips: one exchange per "
            "command, on the wire and as added delay (5.2 for 5; README)."
        ),
        session=plugin("requests_api:exec_gets", keep_alive=True, batch=False),
    ),
    Row(
        BATCH,
        "requests",
        description="requests; one Session kept, one GET carrying every command",
        expected=ONCE,
        evidence=(
            "One GET /admin/exec/cmd1/cmd2/... per iteration. Expected: 1 round trip: one "
            "request per iteration, 1 on the wire, 1.1 as added delay (README)."
        ),
        session=plugin("requests_api:exec_gets", keep_alive=True, batch=True),
    ),
    Row(
        RESTCONF,
        "requests",
        description=(
            "requests; one Session kept (keep-alive), per command one RESTCONF "
            "GET /restconf/data/Cisco-IOS-XE-native:native (JSON)"
        ),
        expected=ONE_PER_COMMAND,
        evidence=(
            "Expected: n round trips: one exchange per command, 5 on the wire and 5.1 as added "
            "delay for 5 (README)."
        ),
        session=plugin("requests_api:restconf_gets"),
    ),
    Row(
        BULK,
        "requests",
        description=(
            "requests; one Session kept (keep-alive); per iteration one "
            "GET /bulk/<size> with stream=True, counted with iter_content"
        ),
        expected=ONCE,
        evidence=(
            "One Session kept (its connection opened by a HEAD before the warm-up); per "
            "iteration one GET /bulk/<size> with stream=True, read with iter_content. "
            "Expected: 1 round trip, counted on the wire at 30 ms: one request on the kept "
            "connection, then only ACKs while the body streams in (README). The added delay "
            "(3.3 RTT for 10 MB, 21 for 100 MB) is the transfer: requests reads 345 MB/s at "
            "local, TCP's window allows ~100 MB/s at 30 ms."
        ),
        session=plugin("requests_api:bulk_download"),
    ),
)
