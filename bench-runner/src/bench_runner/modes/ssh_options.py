"""asyncssh connection options shared by the SSH modes."""

import asyncssh

from bench_runner.modes.base import Target

CONNECT_TIMEOUT_S = 30.0


def client_options(target: Target) -> asyncssh.SSHClientConnectionOptions:
    """Password login only, nothing read from the local user's SSH setup.

    known_hosts=None: the lab device regenerates its host keys on every start, so they
    cannot be pinned; the lab network is isolated.
    """
    return asyncssh.SSHClientConnectionOptions(
        username=target.username,
        password=target.password,
        known_hosts=None,
        client_keys=None,
        agent_path=None,
        config=[],
        preferred_auth="password",
        connect_timeout=CONNECT_TIMEOUT_S,
    )
