"""NETCONF over SSH (RFC 6241/6242) modes: one operation per command of the run (a payload
``<get>`` of ``reply_bytes``, or an ``<edit-config>``; the command text is not sent), each
swept over the framing (``:base:1.0`` end-of-message, ``:base:1.1`` chunked), with the
asyncssh floor client (hand-framed), ncclient, scrapli-netconf on its four transports and
scrapligo."""

from bench_runner.modes.base import NONE, ONCE, ONE_PER_COMMAND, PerIteration
from bench_runner.modes.row import ModeDefinition, Parameters, Plugin, Row, plugin

FRESH = ModeDefinition(
    name="netconf/fresh-session",
    summary=(
        "per iteration a new SSH connection to port 830, the netconf subsystem, the hello "
        "exchange, one <get> per command, <close-session> (not waited for)"
    ),
    lower_bound=PerIteration(per_command=1, fixed=4),
    argument=(
        "Lower bound: n + 4 round trips: TCP, key exchange, password auth with the channel "
        "open pipelined (RFC 4252 section 5.1), the subsystem request with both hellos (the "
        "client sends its hello right behind the request, but must see the server's to know "
        "the framing), then each <get> (n)."
    ),
    connections=ONCE,
    commands_per_request=ONCE,
    parameters=Parameters.NETCONF,
)

REUSE = ModeDefinition(
    name="netconf/reuse-session",
    summary=(
        "a NETCONF session opened before the warm-up and kept; one <get> per command, each "
        "sent after the previous reply"
    ),
    lower_bound=ONE_PER_COMMAND,
    argument="Lower bound: n round trips per iteration: each <get> waits for its reply.",
    connections=NONE,
    commands_per_request=ONCE,
    parameters=Parameters.NETCONF,
)

BATCH = ModeDefinition(
    name="netconf/batch-rpc",
    summary=(
        "a NETCONF session kept; the n <get> RPCs of an iteration are pipelined (all written "
        "at once; RFC 6241 section 4.1 lets a server answer them in order)"
    ),
    lower_bound=ONCE,
    argument="Lower bound: 1 round trip per iteration: every RPC is sent before any reply.",
    connections=NONE,
    commands_per_request=ONCE,
    parameters=Parameters.NETCONF,
)

EDIT_COMMIT = ModeDefinition(
    name="netconf/edit-commit",
    summary=(
        "a NETCONF session kept; per command an <edit-config> (merge into the candidate) "
        "setting the description of interface Loopback0 to a new value, each after the "
        "previous <ok/>, then one <commit> per iteration. The session reads Loopback0's "
        "running description before the warm-up and restores it when the mode ends, neither "
        "measured. It writes the target's configuration: use it on a lab device, or on a real "
        "one whose Loopback0 may change. Parameters: the framing (the replies are <ok/>)"
    ),
    lower_bound=PerIteration(per_command=1, fixed=1),
    argument=(
        "Lower bound: n + 1 round trips per iteration: each edit and the commit wait for the "
        "previous reply (a client that pipelined the commit behind edits it had not seen "
        "succeed could commit a half-applied change)."
    ),
    connections=NONE,
    commands_per_request=ONCE,
    parameters=Parameters.NETCONF_FRAMING,
)

DEFINITIONS = (FRESH, REUSE, BATCH, EDIT_COMMIT)

_EACH_AFTER_REPLY = "Expected: n round trips: one exchange per <get>"
_EDIT_EVIDENCE = (
    "One session kept; per command an edit-config (candidate, merge), then a commit; the "
    "description is restored at the end. Expected: n + 1 round trips: each edit and the "
    "commit wait for their reply, 6 for 5 commands on the wire (README)."
)


def _scrapli_netconf_rows(
    client: str, transport: str, label: str, *, fresh_expected: int, fresh_evidence: str
) -> tuple[Row, ...]:
    """scrapli-netconf over one of scrapli's transport plugins: AsyncNetconfDriver on
    asyncssh, NetconfDriver (in a worker thread) on system, paramiko and ssh2."""
    version = plugin("scrapli_ssh:version", distribution="scrapli-netconf", transport=transport)

    def session(*, fresh: bool, operations: str = "gets") -> Plugin:
        return plugin(
            "scrapli_netconf:session", transport=transport, fresh=fresh, operations=operations
        )

    return (
        Row(
            FRESH,
            client,
            description=(
                f"scrapli-netconf ({label}); per iteration open, one get per command, close"
            ),
            expected=PerIteration(per_command=1, fixed=fresh_expected),
            evidence=fresh_evidence,
            session=session(fresh=True),
            version=version,
        ),
        Row(
            REUSE,
            client,
            description=(
                f"scrapli-netconf ({label.split(':')[0]}); one driver kept; one get per command"
            ),
            expected=ONE_PER_COMMAND,
            evidence=f"One driver kept. {_EACH_AFTER_REPLY}, 5 for 5 on the wire (README).",
            session=session(fresh=False),
            version=version,
        ),
        Row(
            EDIT_COMMIT,
            client,
            description=(
                f"scrapli-netconf ({label.split(':')[0]}); one driver kept; per command "
                "edit_config (candidate), then commit"
            ),
            expected=PerIteration(per_command=1, fixed=1),
            evidence=_EDIT_EVIDENCE,
            session=session(fresh=False, operations="edit-commit"),
            version=version,
        ),
    )


ROWS = (
    # --- asyncssh, hand-framed (floor) --------------------------------------------------
    Row(
        FRESH,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh + hand-framed NETCONF; per iteration a new SSH connection, "
            "netconf subsystem, hello exchange, one <get> per command, close-session"
        ),
        expected=PerIteration(per_command=1, fixed=10),
        evidence=(
            "Expected: n + 10 round trips: ssh/fresh-conn's login up to the channel "
            "confirmation (8), the subsystem request and the server's hello (2), then one per "
            "<get>; close-session is not waited for. The wire at local counts 12 for 2 "
            "commands."
        ),
        session=plugin("asyncssh_netconf:fresh"),
    ),
    Row(
        REUSE,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh + hand-framed NETCONF; one session kept; one <get> per command, "
            "each after the previous reply"
        ),
        expected=ONE_PER_COMMAND,
        evidence=f"{_EACH_AFTER_REPLY} (the session is opened before the warm-up).",
        session=plugin("asyncssh_netconf:kept", pipelined=False),
    ),
    Row(
        BATCH,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh + hand-framed NETCONF; one session kept; the <get> of every "
            "command written at once (pipelined), replies read in order"
        ),
        expected=ONCE,
        evidence="Expected: 1 round trip: the RPCs leave in one write, the replies follow.",
        session=plugin("asyncssh_netconf:kept", pipelined=True),
    ),
    Row(
        EDIT_COMMIT,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh + hand-framed NETCONF; one session kept; per command an "
            "<edit-config> merge into the candidate (Loopback0 description), each after "
            "the previous <ok/>, then one <commit> per iteration"
        ),
        expected=PerIteration(per_command=1, fixed=1),
        evidence="Expected: n + 1 round trips, the lower bound: nothing is waited for twice.",
        session=plugin("asyncssh_netconf:edit_commit"),
    ),
    # --- ncclient -----------------------------------------------------------------------
    Row(
        FRESH,
        "ncclient",
        description=(
            "ncclient; per iteration manager.connect, one get (payload filter) per "
            "command, close_session"
        ),
        expected=PerIteration(per_command=1, fixed=14),
        evidence=(
            "Per iteration manager.connect (paramiko, hello exchange), one get per command, "
            "close_session (waited for). Expected: n + 14 round trips: added delay 18.5 for 5 "
            "commands at 30 ms (README): manager.connect about 13 (paramiko's setup, which "
            "waits on TCP like paramiko's ssh/fresh-conn, plus the hellos), one per get, and "
            "close_session, which ncclient waits for (1). The wire shows 10 + n exchanges, as "
            "for the floor client."
        ),
        session=plugin("ncclient_netconf:session", fresh=True, operations="gets"),
    ),
    Row(
        REUSE,
        "ncclient",
        description=(
            "ncclient; one manager kept; one get per command, each after the previous reply"
        ),
        expected=ONE_PER_COMMAND,
        evidence=f"{_EACH_AFTER_REPLY}, 5 on the wire and 4.8 as added delay for 5 (README).",
        session=plugin("ncclient_netconf:session", fresh=False, operations="gets"),
    ),
    Row(
        BATCH,
        "ncclient",
        description=(
            "ncclient; one manager kept; async_mode: the get of every command sent "
            "without waiting, replies awaited in order"
        ),
        expected=ONE_PER_COMMAND,
        evidence=(
            "async_mode on, so the n gets go out without waiting, then every reply is "
            "awaited. Expected: n round trips, where the mode's floor is 1: ncclient's session "
            "thread writes one queued message per turn of its loop and then waits in select() "
            "for input (ncclient/transport/session.py, TICK 0.1 s), so with async_mode the "
            "next get leaves only once the previous reply arrived: one round trip per get, "
            "counted on the wire (5 for 5) and as added delay (5.0; README)."
        ),
        session=plugin("ncclient_netconf:session", fresh=False, operations="pipelined-gets"),
    ),
    Row(
        EDIT_COMMIT,
        "ncclient",
        description=(
            "ncclient; one manager kept; per command edit_config (candidate, merge), then commit"
        ),
        expected=PerIteration(per_command=1, fixed=1),
        evidence=_EDIT_EVIDENCE,
        session=plugin("ncclient_netconf:session", fresh=False, operations="edit-commit"),
    ),
    # --- scrapli-netconf ----------------------------------------------------------------
    *_scrapli_netconf_rows(
        "scrapli-netconf",
        "asyncssh",
        "asyncssh transport",
        fresh_expected=10,
        fresh_evidence=(
            "AsyncNetconfDriver.open, one get per command, close (close-session). Expected: "
            "n + 10 round trips: added delay 15.4 for 5 commands (README); its asyncssh "
            "transport pays what the floor client does for the connection and hellos; the wire "
            "shows 9 + n (it does not wait for the channel's close)."
        ),
    ),
    *_scrapli_netconf_rows(
        "scrapli-netconf-system",
        "system",
        "system transport: OpenSSH",
        fresh_expected=9,
        fresh_evidence=(
            "NetconfDriver over the system transport (OpenSSH `ssh -s netconf` in a PTY "
            "scrapli drives). Expected: n + 9 round trips, counted on the wire at local "
            "(README): OpenSSH's login and subsystem, the hellos, one per get."
        ),
    ),
    *_scrapli_netconf_rows(
        "scrapli-netconf-paramiko",
        "paramiko",
        "paramiko transport",
        fresh_expected=8,
        fresh_evidence=(
            "NetconfDriver over the paramiko transport (a socket with TCP_NODELAY). Expected: "
            "n + 8 round trips, counted on the wire at local (README)."
        ),
    ),
    *_scrapli_netconf_rows(
        "scrapli-netconf-ssh2",
        "ssh2",
        "ssh2 transport: ssh2-python",
        fresh_expected=9,
        fresh_evidence=(
            "NetconfDriver over the ssh2 transport (ssh2-python, libssh2; a socket with "
            "TCP_NODELAY). Expected: n + 9 round trips, on the wire at local (README)."
        ),
    ),
    # --- scrapligo (Go) -----------------------------------------------------------------
    Row(
        FRESH,
        "scrapligo",
        description=(
            "scrapligo netconf driver (Go, standard transport); per iteration Open, one Get "
            "per command, Close"
        ),
        expected=PerIteration(per_command=1, fixed=9),
        evidence=(
            "Per iteration Open (SSH, subsystem netconf, hellos), one Get per command, Close "
            "(it sends no close-session). Expected: n + 9 round trips, counted on the wire at "
            "local (README): 10 for one command, 14 for five, with either framing; what the "
            "floor client pays for the connection and the hellos less the close-session "
            "exchange, then one per Get."
        ),
        session=plugin("scrapligo:session"),
        version=plugin("scrapligo:version"),
    ),
    Row(
        REUSE,
        "scrapligo",
        description=(
            "scrapligo netconf driver (Go, standard transport); one driver kept; one Get per "
            "command"
        ),
        expected=ONE_PER_COMMAND,
        evidence=(
            "Expected: n round trips: one exchange per Get, 1 for one command and 5 for five "
            "on the wire at local, with either framing (README)."
        ),
        session=plugin("scrapligo:session"),
        version=plugin("scrapligo:version"),
    ),
    Row(
        EDIT_COMMIT,
        "scrapligo",
        description=(
            "scrapligo netconf driver (Go, standard transport); one driver kept; per command "
            "EditConfig (candidate), then Commit"
        ),
        expected=PerIteration(per_command=1, fixed=1),
        evidence=(
            "The description is read when the session opens and restored when it closes. "
            "Expected: n + 1 round trips: each edit and the commit wait for their reply, 2 for "
            "one command and 6 for five on the wire at local, either framing (README)."
        ),
        session=plugin("scrapligo:session"),
        version=plugin("scrapligo:version"),
    ),
)
