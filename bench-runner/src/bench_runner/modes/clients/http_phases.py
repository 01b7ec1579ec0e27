"""Phases of httpx requests, from httpcore's ``trace`` request extension.

httpcore reports ``<step>.started`` and ``<step>.complete`` around each step of a
request; the time between the two is added to the step's phase. Steps happen one after
the other for a request, and the modes that use this send one request at a time, so the
phases do not overlap.
"""

import time
from typing import Any

from bench_runner.phases import PhaseTimer

TRACE_PHASES = {
    "connection.connect_tcp": "tcp_connect",
    "connection.start_tls": "tls_handshake",
    "http11.send_request_headers": "send_request",
    "http11.send_request_body": "send_request",
    "http11.receive_response_headers": "receive_headers",
    "http11.receive_response_body": "receive_body",
    "http11.response_closed": "close",
}


class HttpTrace:
    """The ``trace`` extension of one request: adds its steps to ``phases``."""

    def __init__(self, phases: PhaseTimer) -> None:
        self._phases = phases
        self._started: dict[str, float] = {}

    async def __call__(self, event: str, info: dict[str, Any]) -> None:
        step, _, stage = event.rpartition(".")
        phase = TRACE_PHASES.get(step)
        if phase is None:
            return
        if stage == "started":
            self._started[step] = time.perf_counter()
        elif stage == "complete" and step in self._started:
            self._phases.add(phase, time.perf_counter() - self._started.pop(step))


def trace_extension(phases: PhaseTimer | None) -> dict[str, Any] | None:
    """``extensions`` for an httpx request: the trace when phases are recorded."""
    return None if phases is None else {"trace": HttpTrace(phases)}
