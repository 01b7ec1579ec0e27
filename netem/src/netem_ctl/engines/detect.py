"""Choose the engine: kernel netem when the kernel has it, else the NFQUEUE delayer."""

import logging
import os
from dataclasses import dataclass

from .runner import CommandError, CommandRunner

log = logging.getLogger("netem.detect")

PROBE_DEVICE = "netem-probe"


class NoEngineError(RuntimeError):
    pass


@dataclass(frozen=True)
class EngineChoice:
    name: str
    reason: str
    requested: str = "auto"
    """NETEM_ENGINE: what the lab is configured to use (``auto`` prefers tc)."""


def probe_tc(runner: CommandRunner) -> str | None:
    """None when an IFB device with a netem qdisc can be made here, else why not.

    The probe uses its own throw-away IFB device, so no traffic is touched.
    """
    runner.run(["ip", "link", "del", PROBE_DEVICE], check=False)
    try:
        runner.run(["ip", "link", "add", PROBE_DEVICE, "type", "ifb"])
    except CommandError as exc:
        return f"cannot create an ifb device for ingress shaping ({exc.stderr})"
    try:
        runner.run(["tc", "qdisc", "add", "dev", PROBE_DEVICE, "root", "netem", "delay", "1ms"])
    except CommandError as exc:
        return f"kernel has no sch_netem ({exc.stderr})"
    finally:
        runner.run(["ip", "link", "del", PROBE_DEVICE], check=False)
    return None


def probe_nfq(runner: CommandRunner, delayer_path: str) -> str | None:
    if not os.access(delayer_path, os.X_OK):
        return f"delayer binary {delayer_path} is missing"
    try:
        runner.run(["iptables-legacy", "-w", "-t", "mangle", "-S", "PREROUTING"])
    except (CommandError, FileNotFoundError) as exc:
        return f"iptables-legacy mangle table unusable ({exc})"
    return None


def choose_engine(requested: str, runner: CommandRunner, delayer_path: str) -> EngineChoice:
    if requested == "nfq":
        problem = probe_nfq(runner, delayer_path)
        if problem:
            raise NoEngineError(f"NETEM_ENGINE=nfq but {problem}")
        return EngineChoice("nfq", "requested by NETEM_ENGINE=nfq", requested)
    tc_problem = probe_tc(runner)
    if requested == "tc":
        if tc_problem:
            raise NoEngineError(f"NETEM_ENGINE=tc but {tc_problem}")
        return EngineChoice("tc", "requested by NETEM_ENGINE=tc", requested)
    if tc_problem is None:
        return EngineChoice("tc", "auto: kernel accepts a netem qdisc", requested)
    nfq_problem = probe_nfq(runner, delayer_path)
    if nfq_problem:
        raise NoEngineError(f"no engine usable: tc: {tc_problem}; nfq: {nfq_problem}")
    log.warning("%s; using user-space NFQUEUE engine (nfq)", tc_problem)
    return EngineChoice("nfq", f"auto: {tc_problem}; using user-space NFQUEUE engine", requested)
