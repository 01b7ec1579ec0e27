"""The program's CPU and memory: this process and its children, from getrusage.

Ansible's network_cli and netconf connections live in ``ansible-connection`` processes that
daemonize (fork twice): they leave the process tree, so nobody here would reap them and
RUSAGE_CHILDREN would miss their CPU. The program makes itself a child subreaper (Linux's
PR_SET_CHILD_SUBREAPER) first, so such orphans are re-parented to it, and reaps them after the
job (ansible-playbook closes its persistent connections at its end): then RUSAGE_CHILDREN
counts every process the job started.
"""

import ctypes
import ctypes.util
import os
import resource
import sys
import time

from fleet_tools.protocol import ClientUsage

_PR_SET_CHILD_SUBREAPER = 36
REAP_WAIT_S = 5.0
"""How long to wait for orphans (closing connections) after the job before giving up."""


def become_subreaper() -> bool:
    """Adopt this process's orphaned descendants (Linux); False where not supported."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def reap_children(wait_s: float = REAP_WAIT_S) -> int:
    """Reap every child that has ended or ends within ``wait_s``; how many were reaped.
    Only to be called when the tool is done (it would take a child another part waits for)."""
    reaped = 0
    deadline = time.monotonic() + wait_s
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid:
            reaped += 1
            continue
        if time.monotonic() >= deadline:
            return reaped
        time.sleep(0.05)


def client_usage() -> ClientUsage:
    """CPU (user + system) of this process and its reaped children since the program began,
    interpreter start-up and imports included; peak RSS of the larger of the two."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    # Linux reports ru_maxrss in KiB.
    return ClientUsage(
        cpu_s=round(cpu_s, 6),
        max_rss_bytes=max(own.ru_maxrss, children.ru_maxrss) * 1024,
    )
