"""quic-go's HTTP/3 client (floor client) against the head-end's HTTP/3 API on its UDP port,
through ``goclient-h3`` (clients/quicgo_h3.py), whose ``proxy-h3/`` modes are the catalog's:
per iteration one ``POST /devices/<device>/exec?ssh=<fresh|pooled>`` with every command, on a
new QUIC connection (a full handshake) or on one kept.

The program hands back the head-end's answer as it came (one body, with its HTTP status); it
is read as every client of the head-end reads it (clients/headend_answer.py): the
outputs checked, the iteration's time split by hop, the LAN hop's round trips. What each
connection negotiated and each iteration's loss recovery come from quic-go, as in the h3
modes.
"""

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.device_api import REQUEST_TIMEOUT_S
from bench_runner.modes.clients.goclient_process import (
    GoClientError,
    GoClientProcess,
    IterationReport,
    job_for,
    running,
)
from bench_runner.modes.clients.headend_answer import HeadendAnswer, HopLedger
from bench_runner.modes.clients.quicgo_h3 import CLIENT, QuicGoSession, goclient_h3_path
from bench_runner.modes.mode import Mode


def headend_login(target: Target) -> Target:
    """The head-end as a login target: its address and its credentials, never the device's
    (the program is given only these)."""
    relay = target.via()
    return Target(
        host=target.headend(),
        ssh_port=0,
        https_port=0,
        username=relay.headend_username,
        password=relay.headend_password,
    )


class QuicGoHeadendSession(QuicGoSession):
    """A ``proxy-h3/`` mode's session: the h3 session's connections, recovery and span, plus
    the head-end's outputs, the time by hop (the program reports no phases of its own) and the
    LAN round trips."""

    def __init__(self, process: GoClientProcess) -> None:
        super().__init__(process)
        self._wall_ms: float | None = None
        self._ledger = HopLedger(self.phases)

    async def step(self, commands: Sequence[str]) -> IterationReport:
        report = await super().step(commands)
        self._wall_ms = report.wall_ms
        return report

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self._wall_ms = None
        self._ledger.start()
        # HTTP 200 checked there, the recovery and the connections noted.
        bodies = await super().run_iteration(commands)
        if len(bodies) != 1:
            raise GoClientError(f"{CLIENT}: {len(bodies)} answers to one POST")
        assert self._wall_ms is not None  # step, which reported the bodies, set it
        return self._ledger.read(HeadendAnswer.from_json(bodies[0]), self._wall_ms, commands)

    def take_lan_round_trips(self) -> int | None:
        return self._ledger.take_lan_round_trips()


@asynccontextmanager
async def session(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One ``goclient-h3 <mode>`` process against the head-end's UDP port for the target
    device, paced by the runner one iteration at a time; closing its input ends it."""
    headend = headend_login(target)
    job = {**job_for(headend, mode.port(target), REQUEST_TIMEOUT_S), "device": target.host}
    async with running(goclient_h3_path(), CLIENT, mode.name, job, headend) as process:
        yield QuicGoHeadendSession(process)
