"""The head-end's answer to one POST (docs/relays.md), as every client of it reads it: the
outputs, one per command, checked; what the LAN hop took (its SSH connect and commands, the
head-end's own time, the round trips it counted on its SSH connection), made into the
iteration's time by hop and the LAN's round trips."""

import json
from collections.abc import Sequence

from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError, failure_summary


class HeadendAnswer:
    """The head-end's answer to one POST: the outputs, and what its LAN hop took."""

    def __init__(self, body: object) -> None:
        if not isinstance(body, dict):
            raise IterationError("head-end: the answer is not a JSON object")
        try:
            outputs = body["outputs"]
            statuses = body["exit_statuses"]
            lan = body["lan"]
            self.outputs = [str(output) for output in outputs]
            self.exit_statuses = [int(status) for status in statuses]
            self.connect_ms = float(lan["connect_ms"])
            self.commands_ms = float(lan["commands_ms"])
            self.round_trips = int(lan["round_trips"])
            self.headend_ms = float(body["headend_ms"])
        except (KeyError, TypeError, ValueError) as exc:
            raise IterationError(f"head-end: malformed answer ({exc!r})") from exc

    @classmethod
    def from_json(cls, body: str) -> "HeadendAnswer":
        """The answer in a JSON body; IterationError when it is not JSON."""
        try:
            parsed = json.loads(body)
        except ValueError as exc:
            raise IterationError(f"head-end: the answer is not JSON ({exc})") from exc
        return cls(parsed)

    def checked(self, commands: Sequence[str]) -> list[str]:
        """The outputs, one per command; IterationError for a command that failed."""
        if len(self.outputs) != len(commands) or len(self.exit_statuses) != len(commands):
            raise IterationError(
                f"head-end: {len(self.outputs)} outputs for {len(commands)} commands"
            )
        for command, output, status in zip(commands, self.outputs, self.exit_statuses, strict=True):
            if status != 0:
                raise IterationError(f"{command}: exit status {status}: {failure_summary(output)}")
        return self.outputs


def hop_phases(wall_ms: float, answer: HeadendAnswer) -> dict[str, float]:
    """The iteration's time by hop, in ms, never more than the whole: outside the head-end
    (the WAN and the client), in the head-end itself, its SSH connect across the LAN, and its
    commands across the LAN (the device's time included)."""
    # Each part is clipped to the one that holds it (clocks of two hosts, rounding).
    headend_ms = min(answer.headend_ms, wall_ms)
    lan_ms = min(answer.connect_ms + answer.commands_ms, headend_ms)
    connect_ms = min(answer.connect_ms, lan_ms)
    return {
        "wan_and_client": wall_ms - headend_ms,
        "headend": headend_ms - lan_ms,
        "lan_connect": connect_ms,
        "lan_commands": lan_ms - connect_ms,
    }


class HopLedger:
    """A head-end session's account of its iterations: each answer's hops added to the
    session's phases, its LAN round trips kept until the runner takes them."""

    def __init__(self, phases: PhaseTimer) -> None:
        self._phases = phases
        self._lan_round_trips: int | None = None

    def start(self) -> None:
        """A new iteration: nothing counted for it yet (a failed one counts nothing)."""
        self._lan_round_trips = None

    def read(self, answer: HeadendAnswer, wall_ms: float, commands: Sequence[str]) -> list[str]:
        """The checked outputs of ``answer``, its hops and LAN round trips accounted."""
        outputs = answer.checked(commands)
        for name, ms in hop_phases(wall_ms, answer).items():
            self._phases.add(name, ms / 1000.0)
        self._lan_round_trips = answer.round_trips
        return outputs

    def take_lan_round_trips(self) -> int | None:
        counted, self._lan_round_trips = self._lan_round_trips, None
        return counted
