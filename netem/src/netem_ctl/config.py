"""Settings from the environment (stdlib only)."""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from .engines.ports import Ports
from .fleet import SINGLE_DEVICE, Fleet, FleetError, parse_fleet

ENGINES = ("auto", "tc", "nfq")
# iptables' multiport limit; each protocol has a rule of its own, so it holds per list.
MULTIPORT_MAX_PORTS = 15
# SSH, HTTPS and NETCONF over TCP; HTTP/3 (QUIC) over UDP.
DEFAULT_PORTS = Ports(tcp=(22, 443, 830, 9339), udp=(443,))


class SettingsError(ValueError):
    pass


@dataclass(frozen=True)
class Settings:
    engine: str = "auto"
    initial_profile: str = "local"
    profiles_file: Path = Path("/etc/netem/profiles.yaml")
    ports: Ports = DEFAULT_PORTS
    interface: str = "eth0"
    listen_host: str = "0.0.0.0"
    control_port: int = 8181
    delayer_path: str = "/usr/local/bin/nfq-delayer"
    run_dir: Path = Path("/run/netem")
    state_file: Path = Path("/var/lib/netem/state.json")
    watchdog_interval_s: float = 5.0
    fleet: Fleet = SINGLE_DEVICE

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Self:
        defaults = cls()
        settings = cls(
            engine=env.get("NETEM_ENGINE", defaults.engine).strip().lower(),
            initial_profile=env.get("NETEM_PROFILE", defaults.initial_profile).strip(),
            profiles_file=Path(env.get("NETEM_PROFILES_FILE", str(defaults.profiles_file))),
            ports=Ports(
                tcp=parse_ports(
                    "NETEM_PORTS", env.get("NETEM_PORTS", ",".join(map(str, defaults.ports.tcp)))
                ),
                udp=parse_ports(
                    "NETEM_UDP_PORTS",
                    env.get("NETEM_UDP_PORTS", ",".join(map(str, defaults.ports.udp))),
                    allow_empty=True,
                ),
            ),
            interface=env.get("NETEM_INTERFACE", defaults.interface),
            listen_host=env.get("NETEM_LISTEN_HOST", defaults.listen_host),
            control_port=_int(env, "NETEM_CONTROL_PORT", defaults.control_port),
            delayer_path=env.get("NETEM_DELAYER", defaults.delayer_path),
            run_dir=Path(env.get("NETEM_RUN_DIR", str(defaults.run_dir))),
            state_file=Path(env.get("NETEM_STATE_FILE", str(defaults.state_file))),
            watchdog_interval_s=float(
                env.get("NETEM_WATCHDOG_INTERVAL_S", defaults.watchdog_interval_s)
            ),
            fleet=_fleet(env),
        )
        settings.validate()
        return settings

    def validate(self) -> None:
        if self.engine not in ENGINES:
            raise SettingsError(
                f"NETEM_ENGINE must be one of {', '.join(ENGINES)}, got {self.engine!r}"
            )
        # The control API listens on TCP only, so a UDP port of the same number is no conflict.
        if self.control_port in self.ports.tcp:
            raise SettingsError(
                f"NETEM_PORTS must not contain the control port {self.control_port}"
            )
        if self.watchdog_interval_s <= 0:
            raise SettingsError("NETEM_WATCHDOG_INTERVAL_S must be positive")


def parse_ports(name: str, text: str, allow_empty: bool = False) -> tuple[int, ...]:
    """`name` is the variable `text` came from, for the error message; `allow_empty` lets the
    list be empty (no port of that protocol impaired)."""
    try:
        ports = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as exc:
        raise SettingsError(f"{name} must be comma-separated port numbers, got {text!r}") from exc
    fewest = 0 if allow_empty else 1
    if not fewest <= len(ports) <= MULTIPORT_MAX_PORTS:
        raise SettingsError(f"{name} needs {fewest} to {MULTIPORT_MAX_PORTS} ports, got {text!r}")
    if any(not 1 <= port <= 65535 for port in ports) or len(set(ports)) != len(ports):
        raise SettingsError(f"{name} must be distinct ports in 1..65535, got {text!r}")
    return ports


def _fleet(env: Mapping[str, str]) -> Fleet:
    # The device's own settings: the same two variables tell it which address is which device.
    try:
        return parse_fleet(env.get("DEVICE_FLEET_SIZE", "1"), env.get("DEVICE_FLEET_ADDRESSES", ""))
    except FleetError as exc:
        raise SettingsError(str(exc)) from exc


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    try:
        return int(env.get(name, default))
    except ValueError as exc:
        raise SettingsError(f"{name} must be an integer") from exc
