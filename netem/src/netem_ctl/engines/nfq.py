"""User-space engine: iptables-legacy queues the benchmark ports, nfq-delayer holds the packets.

Queue 1 takes client->device packets (mangle PREROUTING, -i eth0, --dports). Queue 2 takes
device->client packets after they have crossed the detour (mangle FORWARD, -i DETOUR_IN -o eth0,
--sports), where no local socket owns them any more; mangle OUTPUT marks them for it. Each chain
has one rule per protocol with ports (TCP, then UDP), so QUIC takes the same path as TCP. No
--queue-bypass: if a delayer dies its traffic is dropped, which the benchmark notices, instead of
silently passing unimpaired.
"""

import logging
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..impairment import DirectionImpairment, Impairment
from . import detour
from .base import Engine
from .ports import Ports
from .runner import Command, CommandRunner

log = logging.getLogger("netem.nfq")

IPTABLES = "iptables-legacy"
TABLE = "mangle"
CHAIN_TOWARD_DEVICE = "NETEM_LAB_IN"
CHAIN_FROM_DEVICE = "NETEM_LAB_OUT"
CHAIN_DETOUR = "NETEM_LAB_DETOUR"
QUEUE_TOWARD_DEVICE = 1
QUEUE_FROM_DEVICE = 2
DELAYER_ACK_TIMEOUT_S = 3.0
DELAYER_STOP_TIMEOUT_S = 3.0
# The delayer rewrites its stats file every second; older than this means it is stuck.
STATS_STALE_S = 5.0


def ipt(*args: str) -> Command:
    return [IPTABLES, "-w", "-t", TABLE, *args]


def rule_specs(interface: str, ports: Ports) -> dict[str, list[list[str]]]:
    """Chain -> its rules, one per protocol with ports, in `iptables -S` spelling."""
    specs: dict[str, list[list[str]]] = {
        CHAIN_TOWARD_DEVICE: [],
        CHAIN_FROM_DEVICE: [],
        CHAIN_DETOUR: [],
    }
    for protocol, numbers in ports.by_protocol():
        port_list = ",".join(map(str, numbers))
        specs[CHAIN_TOWARD_DEVICE].append(
            [
                "-i",
                interface,
                "-p",
                protocol,
                "-m",
                "multiport",
                "--dports",
                port_list,
                "-j",
                "NFQUEUE",
                "--queue-num",
                str(QUEUE_TOWARD_DEVICE),
            ]
        )
        specs[CHAIN_FROM_DEVICE].append(
            [
                "-i",
                detour.DETOUR_IN,
                "-o",
                interface,
                "-p",
                protocol,
                "-m",
                "multiport",
                "--sports",
                port_list,
                "-j",
                "NFQUEUE",
                "--queue-num",
                str(QUEUE_FROM_DEVICE),
            ]
        )
        # UDP detours too: a datagram stays charged to its socket's send buffer until freed, so
        # holding the device's own datagrams in OUTPUT would stall a QUIC sender (detour.py).
        specs[CHAIN_DETOUR].append(
            [
                "-o",
                interface,
                "-p",
                protocol,
                "-m",
                "multiport",
                "--sports",
                port_list,
                "-j",
                "MARK",
                "--set-xmark",
                f"{hex(detour.FWMARK)}/0xffffffff",
            ]
        )
    return specs


HOOKS = {CHAIN_TOWARD_DEVICE: "PREROUTING", CHAIN_FROM_DEVICE: "FORWARD", CHAIN_DETOUR: "OUTPUT"}


def install_commands(interface: str, ports: Ports) -> list[Command]:
    commands: list[Command] = []
    for chain, specs in rule_specs(interface, ports).items():
        commands += [ipt("-N", chain), *(ipt("-A", chain, *spec) for spec in specs)]
    for chain, hook in HOOKS.items():
        commands.append(ipt("-I", hook, "1", "-j", chain))
    return commands


def remove_commands() -> list[Command]:
    """Each may fail harmlessly when its rule or chain is already gone."""
    commands = [ipt("-D", hook, "-j", chain) for chain, hook in HOOKS.items()]
    for chain in HOOKS:
        commands += [ipt("-F", chain), ipt("-X", chain)]
    return commands


def expected_rule_lines(interface: str, ports: Ports) -> list[str]:
    lines = [f"-A {hook} -j {chain}" for chain, hook in HOOKS.items()]
    lines += [
        f"-A {chain} {' '.join(spec)}"
        for chain, specs in rule_specs(interface, ports).items()
        for spec in specs
    ]
    return lines


def delayer_params(direction: DirectionImpairment, generation: int) -> str:
    return (
        f"generation={generation}\n"
        f"delay_us={direction.delay_us}\n"
        f"jitter_us={direction.jitter_us}\n"
        f"loss_ppm={round(direction.loss_pct * 10_000)}\n"
        f"rate_bps={direction.rate_kbit * 1000}\n"
        f"limit_packets={direction.limit_packets}\n"
        f"keep_order={int(direction.keep_order)}\n"
    )


def parse_key_values(text: str) -> dict[str, int]:
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and value.strip().isdigit():
            values[key.strip()] = int(value)
    return values


def delayer_command(delayer_path: str, queue: int, params_file: Path, stats_file: Path) -> Command:
    return [
        delayer_path,
        "--queue-num",
        str(queue),
        "--params",
        str(params_file),
        "--stats",
        str(stats_file),
    ]


@dataclass
class Delayer:
    """One nfq-delayer process serving one queue; parameters change via file + SIGHUP."""

    direction: str
    queue: int
    runner: CommandRunner
    delayer_path: str
    run_dir: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def params_file(self) -> Path:
        return self.run_dir / f"{self.direction}.params"

    @property
    def stats_file(self) -> Path:
        return self.run_dir / f"{self.direction}.stats"

    def is_running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def apply(self, direction: DirectionImpairment, generation: int) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        temporary = self.params_file.with_suffix(".tmp")
        temporary.write_text(delayer_params(direction, generation))
        os.replace(temporary, self.params_file)
        if self.is_running():
            assert self.process is not None
            self.process.send_signal(signal.SIGHUP)
        else:
            self._start()
        self._await_generation(generation)

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()  # the delayer accepts what it holds, then exits
            try:
                self.process.wait(DELAYER_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdin:
            self.process.stdin.close()
        self.process = None

    def stats(self) -> dict[str, int]:
        try:
            return parse_key_values(self.stats_file.read_text())
        except FileNotFoundError:
            return {}

    def problems(self, generation: int) -> list[str]:
        if not self.is_running():
            code = self.process.returncode if self.process else None
            return [
                f"nfq-delayer for {self.direction} (queue {self.queue}) is not running "
                f"(exit status {code})"
            ]
        try:
            age = time.time() - self.stats_file.stat().st_mtime
        except FileNotFoundError:
            return [f"nfq-delayer for {self.direction} wrote no stats file"]
        if age > STATS_STALE_S:
            return [f"nfq-delayer for {self.direction} is stuck (stats {age:.0f} s old)"]
        if self.stats().get("generation") != generation:
            return [
                f"nfq-delayer for {self.direction} has not applied parameters generation "
                f"{generation}"
            ]
        return []

    def _start(self) -> None:
        self.stats_file.unlink(missing_ok=True)
        self.process = self.runner.spawn(
            delayer_command(self.delayer_path, self.queue, self.params_file, self.stats_file)
        )

    def _await_generation(self, generation: int) -> None:
        deadline = time.monotonic() + DELAYER_ACK_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.is_running():
                raise RuntimeError(
                    f"nfq-delayer for {self.direction} exited with status "
                    f"{self.process.returncode if self.process else None}; see its log above"
                )
            if self.stats().get("generation") == generation:
                return
            time.sleep(0.01)
        raise RuntimeError(
            f"nfq-delayer for {self.direction} did not apply generation {generation} "
            f"within {DELAYER_ACK_TIMEOUT_S} s"
        )


class NfqEngine(Engine):
    name = "nfq"

    def __init__(
        self,
        runner: CommandRunner,
        interface: str,
        ports: Ports,
        delayer_path: str,
        run_dir: Path,
    ):
        self.runner = runner
        self.interface = interface
        self.ports = ports
        self.generation = 0
        self.toward_device = Delayer(
            "toward_device", QUEUE_TOWARD_DEVICE, runner, delayer_path, run_dir
        )
        self.from_device = Delayer("from_device", QUEUE_FROM_DEVICE, runner, delayer_path, run_dir)
        self.detour = detour.Detour(runner)

    def apply(self, impairment: Impairment) -> None:
        if impairment.is_neutral:
            self.clear()
            return
        self.generation += 1
        # Delayers first: a rule pointing at an unbound queue would drop packets.
        self.toward_device.apply(impairment.toward_device(), self.generation)
        self.from_device.apply(impairment.from_device(), self.generation)
        if self.detour.problems():
            self.detour.install()
            if remaining := self.detour.problems():
                raise RuntimeError("; ".join(remaining))
        if self._rule_problems():
            self.runner.run_all(remove_commands(), check=False)
            self.runner.run_all(install_commands(self.interface, self.ports))

    def clear(self) -> None:
        self.runner.run_all(remove_commands(), check=False)
        self.detour.remove()
        self.toward_device.stop()
        self.from_device.stop()

    def problems(self, impairment: Impairment) -> list[str]:
        if impairment.is_neutral:
            return []
        return [
            *self._rule_problems(),
            *self.detour.problems(),
            *self.toward_device.problems(self.generation),
            *self.from_device.problems(self.generation),
        ]

    def readback(self) -> dict[str, str]:
        return {
            "tc": "",
            "iptables": self._rules_text(),
            "iptables_counters": self._counters_text(),
            "detour": self.detour.readback(),
            "delayer": self._stats_text(),
        }

    def counters(self) -> dict[str, dict[str, int]]:
        return {
            delayer.direction: delayer.stats()
            for delayer in (self.toward_device, self.from_device)
            if delayer.is_running()
        }

    def _rules_text(self) -> str:
        return "".join(self.runner.output(ipt("-S", chain)) for chain in (*HOOKS.values(), *HOOKS))

    def _counters_text(self) -> str:
        """Packets and bytes each rule has matched: traffic really reaching the queues."""
        return "".join(self.runner.output(ipt("-L", chain, "-v", "-n", "-x")) for chain in HOOKS)

    def _rule_problems(self) -> list[str]:
        installed = set(self._rules_text().splitlines())
        return [
            f"iptables: missing `{line}`"
            for line in expected_rule_lines(self.interface, self.ports)
            if line not in installed
        ]

    def _stats_text(self) -> str:
        return "".join(
            f"# {direction}\n" + "".join(f"{k}={v}\n" for k, v in stats.items())
            for direction, stats in self.counters().items()
        )
