"""SSH CLI modes: exec channels (fresh, kept, batched) and PTY shells (fresh, kept), with
every client that can drive them. Counts ``(README)`` are from the lab's measurements:
added delay over the RTT, or exchanges counted on the wire (bench-runner/README.md)."""

from bench_runner.modes.base import NONE, ONCE, ONE_PER_COMMAND, PerIteration
from bench_runner.modes.row import ModeDefinition, Plugin, Row, plugin

FRESH = ModeDefinition(
    name="ssh/fresh-conn",
    summary="a new SSH connection for every command, like Ansible without ControlPersist",
    lower_bound=PerIteration(per_command=4),
    argument=(
        "Lower bound: 4n round trips, for any client that follows the RFCs: 1. the TCP "
        "handshake (sshd does not enable TCP Fast Open); 2. the key exchange: the client "
        "needs the server's ECDH reply before it can encrypt anything, even when it guesses "
        "the algorithms and sends its ECDH init without waiting for the server's KEXINIT; "
        "3. user authentication: RFC 4252 section 5.1 lets the client pipeline its channel "
        "open right behind a password request that will succeed, so auth and channel open "
        "share one round trip; 4. exec: the exec request names the server's channel number, "
        "which only the channel open confirmation carries; the output comes back one round "
        "trip later. Closing needs no wait."
    ),
    connections=ONE_PER_COMMAND,
    commands_per_request=ONCE,
)

REUSE = ModeDefinition(
    name="ssh/reuse-conn",
    summary="one SSH connection kept for the whole run; each command a new exec channel",
    lower_bound=PerIteration(per_command=2),
    argument=(
        "Lower bound: 2n round trips: the channel open must be confirmed first (the exec "
        "request names the server's channel number), then the exec request is answered."
    ),
    connections=NONE,
    commands_per_request=ONCE,
)

BATCH = ModeDefinition(
    name="ssh/batch-exec",
    summary=(
        "one SSH connection kept; per iteration one exec channel whose command string carries "
        "every command, separated by newlines (the device runs them in order, exit status 1 "
        "if any failed)"
    ),
    lower_bound=PerIteration(fixed=2),
    argument=(
        "Lower bound: 2 round trips: the channel open confirmation, then the exec request "
        "answered with the combined output."
    ),
    connections=NONE,
    commands_per_request=ONE_PER_COMMAND,
)

PTY_FRESH = ModeDefinition(
    name="ssh/pty-fresh",
    summary="per iteration a new connection and PTY shell, as Netmiko and Ansible network_cli do",
    lower_bound=PerIteration(per_command=1, fixed=6),
    argument=(
        "Lower bound: n + 6 round trips: TCP, key exchange, password auth with the channel "
        "open pipelined (RFC 4252 section 5.1), and the pty-req and shell requests, which "
        "need the channel confirmation, answered by the first prompt (4); then `terminal "
        "length 0` and `terminal width 511` (2) and each command (n), each of which waits for "
        "the prompt before the next is sent. Sending `exit` needs no wait."
    ),
    connections=ONCE,
    commands_per_request=ONCE,
)

PTY_REUSE = ModeDefinition(
    name="ssh/pty-reuse",
    summary=(
        "a connection kept for the whole run; per iteration a new PTY shell on it (channel "
        "open, pty-req, shell), session prep, the commands, exit"
    ),
    lower_bound=PerIteration(per_command=1, fixed=4),
    argument=(
        "Lower bound: n + 4 round trips: the channel open confirmation (the pty-req and "
        "shell requests name the server's channel number), then pty-req and shell, which can "
        "be sent back to back, answered by the first prompt (2); then the 2 setup commands "
        "and the n commands, each waiting for the prompt."
    ),
    connections=NONE,
    commands_per_request=ONCE,
)

DEFINITIONS = (FRESH, REUSE, BATCH, PTY_FRESH, PTY_REUSE)

_PTY_DIALOGUE = "prompt, terminal length 0, terminal width 511, each command with echo check, exit"
_SCRAPLI_SHAPE = "per iteration open, send_command per command, close"


def _parallel_ssh_rows(flavour: str, library: str, *, batch_expected: int) -> tuple[Row, ...]:
    """parallel-ssh's single-host client on ``library``: ``pssh.clients.native`` (libssh2,
    through ssh2-python) or ``pssh.clients.ssh`` (libssh, through ssh-python)."""
    client = f"parallel-ssh-{flavour}"
    label = "parallel-ssh native (libssh2)" if flavour == "native" else "parallel-ssh ssh (libssh)"
    version = plugin("parallel_ssh:version", flavour=flavour)

    def session(*, fresh: bool, style: str) -> Plugin:
        return plugin("parallel_ssh:session", flavour=flavour, fresh=fresh, style=style)

    return (
        Row(
            FRESH,
            client,
            description=f"{label}; a new SSHClient per command, run_command",
            expected=PerIteration(per_command=8),
            evidence=(
                f"pssh's SSHClient on {library}: per command a client (connect, handshake, "
                "password auth), `run_command`, output, `wait_finished`, disconnect. Expected: "
                "8n round trips, counted on the wire at local (16 for 2 commands)."
            ),
            session=session(fresh=True, style="exec"),
            version=version,
        ),
        Row(
            REUSE,
            client,
            description=f"{label}; one SSHClient kept; run_command per command",
            expected=PerIteration(per_command=2),
            evidence=(
                "One SSHClient kept; `run_command` (a new channel) per command, "
                "`wait_finished`. Expected: 2n round trips, channel open and exec (the wire at "
                "local: 4 for 2 commands)."
            ),
            session=session(fresh=False, style="exec"),
            version=version,
        ),
        Row(
            BATCH,
            client,
            description=f"{label}; one SSHClient kept; one run_command, all commands",
            expected=PerIteration(fixed=batch_expected),
            evidence=(
                "One SSHClient kept; one `run_command` with every command. Expected: "
                f"{batch_expected} round trips (README): channel open and exec"
                + (", and the channel close libssh2 waits for." if batch_expected == 3 else ".")
            ),
            session=session(fresh=False, style="batch"),
            version=version,
        ),
        Row(
            PTY_FRESH,
            client,
            description=f"{label}; per iteration a new SSHClient and PTY shell: {_PTY_DIALOGUE}",
            expected=PerIteration(per_command=1, fixed=12),
            evidence=(
                "Per iteration a new SSHClient, a channel with a PTY and pssh's "
                "`InteractiveShell`, the prompt-driven dialogue, `exit`, close. Expected: n + 12 "
                "round trips (wire, README), as ssh2-python's."
            ),
            session=session(fresh=True, style="pty"),
            version=version,
        ),
        Row(
            PTY_REUSE,
            client,
            description=(
                f"{label}; one SSHClient kept; per iteration a new PTY shell: {_PTY_DIALOGUE}"
            ),
            expected=PerIteration(per_command=1, fixed=6),
            evidence=(
                "One SSHClient kept; per iteration a PTY shell on a new channel. Expected: "
                "n + 6 round trips (wire, README)."
            ),
            session=session(fresh=False, style="pty"),
            version=version,
        ),
    )


ROWS = (
    # --- asyncssh (floor) ---------------------------------------------------------------
    Row(
        FRESH,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh; a new SSH connection per command (TCP, key exchange, password auth, "
            "exec, close), like Ansible without ControlPersist"
        ),
        expected=PerIteration(per_command=10),
        evidence=(
            "Expected: 10n round trips against the lab's OpenSSH 9.2, measured (README). An "
            "asyncssh debug trace at 70 ms RTT shows where they go: TCP (1); the server's "
            "version line (1); the server's KEXINIT, which OpenSSH sends after the client's "
            "(1); ECDH reply (1); ssh-userauth service accept (1); the 'none' auth probe "
            "asyncssh starts with (1); password auth (1); channel open (1, but the "
            "confirmation came 2.5 RTT after the request, behind sshd's hostkeys-00 message: "
            "TCP-level waiting, not a protocol exchange); exec until the channel closes (1, "
            "plus about 0.5 before exit status and close arrive)."
        ),
        session=plugin("asyncssh_exec:fresh"),
    ),
    Row(
        REUSE,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh; one SSH connection opened before the measured iterations and kept; "
            "each command is a new exec channel"
        ),
        expected=PerIteration(per_command=2),
        evidence=(
            "Expected: 2n round trips (the connection is opened before the measured "
            "iterations); measured 2.4 per command, the extra 0.4 being TCP-level waiting for "
            "sshd's exit status, EOF and close after the output, not a protocol round trip."
        ),
        session=plugin("asyncssh_exec:kept", batch=False),
    ),
    Row(
        BATCH,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh; one SSH connection kept; per iteration one exec channel running every "
            "command (separated by newlines)"
        ),
        expected=PerIteration(fixed=2),
        evidence=(
            "Expected: 2 round trips (plus TCP-level waiting for the larger combined output "
            "and sshd's exit status and close)."
        ),
        session=plugin("asyncssh_exec:kept", batch=True),
    ),
    Row(
        PTY_FRESH,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh; per iteration a new connection and PTY shell (vt100, 511 columns): wait "
            "for the prompt, terminal length 0, terminal width 511, each command with echo "
            "check, exit; what Netmiko and Ansible network_cli do"
        ),
        expected=PerIteration(per_command=1, fixed=14),
        evidence=(
            "Expected: n + 14 round trips against the lab's OpenSSH, measured (README): the "
            "login of ssh/fresh-conn up to the channel confirmation (8, plus its 1.5 of TCP "
            "waiting), pty-req and shell (1 each), the 2 setup commands, n commands, and the "
            "wait for the channel to close after `exit` (about 0.5 to 1)."
        ),
        session=plugin("asyncssh_pty:fresh"),
    ),
    Row(
        PTY_REUSE,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh; one SSH connection kept; per iteration a new PTY shell: " + _PTY_DIALOGUE
        ),
        expected=PerIteration(per_command=1, fixed=6),
        evidence=(
            "Expected: n + 6 round trips (measured 11.5 for 5 commands at 30 ms): channel "
            "open, pty-req and shell each waited for (asyncssh sends them one after the "
            "other), the setup commands, n commands, and about 1 for the channel to close "
            "after `exit`."
        ),
        session=plugin("asyncssh_pty:kept"),
    ),
    # --- paramiko -----------------------------------------------------------------------
    Row(
        FRESH,
        "paramiko",
        description="paramiko; a new SSHClient connection per command, exec_command, close",
        expected=PerIteration(per_command=12),
        evidence=(
            "A new SSHClient (TCP, key exchange, password auth) per command, exec, close. "
            "Expected: 12n round trips: added delay 12.4 and 11.4 per command at 30 ms in two "
            "runs (README); 8 protocol exchanges per connection on the wire, the rest is "
            "TCP-level waiting (paramiko's transport writes each SSH message on its own, so "
            "sshd's delayed ACKs show)."
        ),
        session=plugin("paramiko_ssh:fresh"),
    ),
    Row(
        REUSE,
        "paramiko",
        description="paramiko; one SSHClient kept; exec_command (new channel) per command",
        expected=PerIteration(per_command=3),
        evidence=(
            "Expected: 3n round trips: added delay 2.9 and 3.0 per command (README); 2 "
            "exchanges per command on the wire (channel open, exec), plus a wait for the "
            "channel's close."
        ),
        session=plugin("paramiko_ssh:kept", batch=False),
    ),
    Row(
        BATCH,
        "paramiko",
        description="paramiko; one SSHClient kept; one exec_command with every command",
        expected=PerIteration(fixed=3),
        evidence=(
            "Expected: 3 round trips: added delay 2.7 and 3.1 at 30 ms (README); 2 exchanges "
            "on the wire (channel open, exec), plus the wait for exit status and close, as in "
            "reuse-conn."
        ),
        session=plugin("paramiko_ssh:kept", batch=True),
    ),
    # --- the OpenSSH client -------------------------------------------------------------
    Row(
        FRESH,
        "openssh",
        description="OpenSSH ssh (via sshpass); a new process and connection per command",
        expected=PerIteration(per_command=10),
        evidence=(
            "`ssh user@device cmd`, password via sshpass, a new process and connection per "
            "command. Expected: 10n round trips: 10 exchanges per connection on the wire, in "
            "every iteration at local and regional (README); the added-delay count straddles "
            "it (8.6 and 11.3 per command in two runs) because the local p50 is the ssh "
            "process's CPU time, which varies more than the RTT."
        ),
        session=plugin("openssh:fresh"),
        version=plugin("openssh:version"),
    ),
    Row(
        REUSE,
        "openssh",
        description=(
            "OpenSSH ssh; ControlMaster connection kept; per command a new ssh process "
            "multiplexing an exec channel over it (Ansible ControlPersist)"
        ),
        expected=PerIteration(per_command=2),
        evidence=(
            "Per command a new ssh process opening a channel on the kept master (the local "
            "mux socket adds no network round trip). Expected: 2n round trips: added delay "
            "10.2 and 10.8 for 5 commands (README), channel open and exec through the master. "
            "The wire shows 3 direction changes per command: the master's window adjust "
            "crosses the exit status without a wait."
        ),
        session=plugin("openssh:multiplexed", batch=False),
        version=plugin("openssh:version"),
    ),
    Row(
        BATCH,
        "openssh",
        description=(
            "OpenSSH ssh; ControlMaster connection kept; one ssh process per iteration "
            "running every command"
        ),
        expected=PerIteration(fixed=2),
        evidence=(
            "Expected: 2 round trips: added delay 2.4 and 2.1 (README), channel open and exec "
            "through the master."
        ),
        session=plugin("openssh:multiplexed", batch=True),
        version=plugin("openssh:version"),
    ),
    # --- netmiko and scrapli (PTY drivers) ----------------------------------------------
    Row(
        PTY_FRESH,
        "netmiko",
        description=(
            "netmiko cisco_ios; per iteration ConnectHandler (session preparation), "
            "send_command per command, disconnect"
        ),
        expected=PerIteration(per_command=1, fixed=20),
        evidence=(
            "device_type cisco_ios, default settings: per iteration ConnectHandler "
            "(connection, PTY shell, netmiko's session preparation: prompt detection, terminal "
            "width, terminal length 0), send_command per command, disconnect. Expected: n + 20 "
            "round trips: added delay 24.6 and 24.8 for 5 commands at 30 ms in two runs "
            "(README), the asyncssh client's 14 + n plus netmiko's prompt probes (a newline, "
            "then a read) and its terminal width command; 29 direction changes on the wire."
        ),
        session=plugin("netmiko_ssh:pty_fresh"),
    ),
    Row(
        PTY_FRESH,
        "scrapli",
        description=(
            "scrapli AsyncIOSXEDriver (asyncssh transport); per iteration open, "
            "send_command per command, close"
        ),
        expected=PerIteration(per_command=1, fixed=20),
        evidence=(
            "AsyncIOSXEDriver over its asyncssh transport: per iteration open (connection, PTY "
            "shell, privilege check, terminal length 0 and width), send_command per command, "
            "close. Expected: n + 20 round trips: added delay 24.6 and 26.3 for 5 commands at "
            "30 ms in two runs (README), the asyncssh client's 14 + n plus scrapli's privilege "
            "check and prompt reads; 26 direction changes on the wire. The client name "
            "`scrapli` (without a transport) is this asyncssh transport, as it has been since "
            "the first results; the other transports are `scrapli-<transport>`."
        ),
        session=plugin("scrapli_ssh:pty_fresh", transport="asyncssh"),
        version=plugin("scrapli_ssh:version", distribution="scrapli", transport="asyncssh"),
    ),
    Row(
        PTY_FRESH,
        "scrapli-system",
        description=("scrapli IOSXEDriver (system transport: OpenSSH ssh); " + _SCRAPLI_SHAPE),
        expected=PerIteration(per_command=1, fixed=20),
        evidence=(
            "IOSXEDriver over its system transport (the OpenSSH `ssh` binary in a PTY that "
            "scrapli drives, typing the password itself). Expected: n + 20 round trips: "
            "OpenSSH's login (its fresh-conn count up to the shell) plus scrapli's session "
            "preparation, as with asyncssh; the wire at local counts 19 for 2 commands, one "
            "fewer than the ssh2 transport."
        ),
        session=plugin("scrapli_ssh:pty_fresh", transport="system"),
        version=plugin("scrapli_ssh:version", distribution="scrapli", transport="system"),
    ),
    Row(
        PTY_FRESH,
        "scrapli-paramiko",
        description="scrapli IOSXEDriver (paramiko transport); " + _SCRAPLI_SHAPE,
        expected=PerIteration(per_command=1, fixed=20),
        evidence=(
            "IOSXEDriver over its paramiko transport (a socket with TCP_NODELAY). Expected: "
            "n + 20 round trips, counted on the wire at local (README; 19 for 2 commands)."
        ),
        session=plugin("scrapli_ssh:pty_fresh", transport="paramiko"),
        version=plugin("scrapli_ssh:version", distribution="scrapli", transport="paramiko"),
    ),
    Row(
        PTY_FRESH,
        "scrapli-ssh2",
        description=(
            "scrapli IOSXEDriver (ssh2 transport: ssh2-python, libssh2); " + _SCRAPLI_SHAPE
        ),
        expected=PerIteration(per_command=1, fixed=21),
        evidence=(
            "IOSXEDriver over its ssh2 transport (ssh2-python, libssh2; a socket with "
            "TCP_NODELAY). Expected: n + 21 round trips, counted on the wire at local "
            "(README; 20 for 2 commands, one more than the system and paramiko transports)."
        ),
        session=plugin("scrapli_ssh:pty_fresh", transport="ssh2"),
        version=plugin("scrapli_ssh:version", distribution="scrapli", transport="ssh2"),
    ),
    # --- ssh2-python (libssh2) ----------------------------------------------------------
    Row(
        FRESH,
        "ssh2-python",
        description="ssh2-python (libssh2); a new connection per command, exec, close",
        expected=PerIteration(per_command=9),
        evidence=(
            "Blocking, per command a socket (TCP_NODELAY), `handshake`, `userauth_password`, "
            "a session channel, exec, output to EOF, close. Expected: 9n round trips, counted "
            "on the wire at local (README): TCP, version lines, KEXINIT, ECDH reply, service "
            "accept, password auth (libssh2 sends no 'none' probe), channel open, exec, and "
            "the close handshake it waits for."
        ),
        session=plugin("ssh2_python:fresh", pty=False),
        version=plugin("ssh2_python:version"),
    ),
    Row(
        REUSE,
        "ssh2-python",
        description="ssh2-python (libssh2); one session kept; a new exec channel per command",
        expected=PerIteration(per_command=2),
        evidence=(
            "One session kept; per command a session channel, exec, output to EOF, `close` "
            "and `wait_closed`. Expected: 2n round trips (README): channel open and exec; the "
            "channel close libssh2 waits for overlaps the output's end on the wire (5 "
            "direction changes for 2 commands at local)."
        ),
        session=plugin("ssh2_python:kept", style="reuse"),
        version=plugin("ssh2_python:version"),
    ),
    Row(
        BATCH,
        "ssh2-python",
        description="ssh2-python (libssh2); one session kept; one exec channel with every command",
        expected=PerIteration(fixed=3),
        evidence=(
            "One session kept; one exec channel per iteration with every command. Expected: "
            "3 round trips (README): as reuse-conn, once, plus the close libssh2 waits for."
        ),
        session=plugin("ssh2_python:kept", style="batch"),
        version=plugin("ssh2_python:version"),
    ),
    Row(
        PTY_FRESH,
        "ssh2-python",
        description=(
            "ssh2-python (libssh2); per iteration a new connection and PTY shell: " + _PTY_DIALOGUE
        ),
        expected=PerIteration(per_command=1, fixed=12),
        evidence=(
            "Per iteration a new session, a channel with `pty` (vt100) and `shell`, the floor "
            "client's prompt-driven dialogue, `exit`, close. Expected: n + 12 round trips "
            "(wire, README): the login of fresh-conn (6), channel open, pty-req and shell each "
            "waited for (3), the 2 setup commands, n commands, and the close."
        ),
        session=plugin("ssh2_python:fresh", pty=True),
        version=plugin("ssh2_python:version"),
    ),
    Row(
        PTY_REUSE,
        "ssh2-python",
        description=(
            "ssh2-python (libssh2); one session kept; per iteration a new PTY shell: "
            + _PTY_DIALOGUE
        ),
        expected=PerIteration(per_command=1, fixed=6),
        evidence=(
            "One session kept; per iteration a PTY shell on a new channel. Expected: n + 6 "
            "round trips (wire, README): channel open, pty-req and shell each waited for, the "
            "setup commands, n commands, the channel's close."
        ),
        session=plugin("ssh2_python:kept", style="pty"),
        version=plugin("ssh2_python:version"),
    ),
    *_parallel_ssh_rows("native", "libssh2", batch_expected=3),
    *_parallel_ssh_rows("libssh", "libssh", batch_expected=2),
    # --- scrapligo (Go) -----------------------------------------------------------------
    Row(
        PTY_FRESH,
        "scrapligo",
        description=(
            "scrapligo network driver (Go, standard transport); per iteration Open, "
            "SendCommand per command, Close"
        ),
        expected=PerIteration(per_command=2, fixed=17),
        evidence=(
            "scrapligo's network driver (cisco_iosxe platform) over its standard transport "
            "(golang.org/x/crypto/ssh): per iteration Open (connection, PTY shell, privilege "
            "check, terminal width and length), SendCommand per command, Close. Expected: "
            "2n + 17 round trips, counted on the wire at local (README): 19 for one command "
            "and 27 for five, every iteration within one of that. Two per command: "
            "SendCommand writes the command, waits until the device has echoed it, and only "
            "then sends the return (scrapligo's channel checks the echo before it commits the "
            "input), so each command costs its echo and its output. The fixed 17: the SSH "
            "login and the PTY shell the floor client also pays, then the driver's prompt "
            "reads, its privilege check and the platform's two terminal commands (two round "
            "trips each, like a command), and the exit on Close."
        ),
        session=plugin("scrapligo:session"),
        version=plugin("scrapligo:version"),
    ),
)
