"""Plan files: profiles x modes x clients x iterations x commands, as YAML.

A mode measures until its median is precise (``precision_pct``: the half-width of its 95 %
interval in percent of it, with ``min_iterations``, ``max_iterations`` and
``mode_time_cap_s`` bounding it; precision.py), unless ``iterations`` sets a fixed count.

Every field is optional; a missing field takes its default in ``Plan``, which is where the
defaults are written (the ``default`` plan is ``Plan()``; the CLI's help texts show them).
``modes`` is a list of mode names, ``all`` (every mode) or ``default`` (the six original
modes); ``clients`` a list of client names, ``floor`` (asyncssh, httpx, Python ssl) or
``all``. ``netconf_framing`` (``1.1`` chunked, or ``1.0`` end-of-message) and
``netconf_reply_bytes`` set what the NETCONF modes ask for; either may be a list, and the
run then measures every NETCONF mode and client for each framing x reply size.
``tunnel_bulk_sizes`` lists the downloads of ``tunnel/bulk`` and ``https/bulk`` (``10M``,
``100M``, ``1G``; default ``[10M]``: large ones are opt-in) and ``tunnel_bulk_iterations`` how
often each is measured (default: ``iterations``). ``verdicts`` sets how the run's series are
judged against the plan's earlier nights (``VerdictConfig``: baseline nights, minimum nights,
z threshold, minimum change). ``fleet_hosts`` and ``fleet_repeats`` (each a number or a
list) set how many fleet devices ``ssh/fleet-show-version`` connects to and how many whole
runs over them an iteration makes; the run measures each host count x repeats.
``restconf_encoding`` (``json`` or ``xml``, or a list: the run measures each) sets what the
RESTCONF reads ask for.
Built-in plans (``BUILTIN_PLANS``) are named without a path;
command-line options override the plan's values.
"""

from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bench_runner.payloads import BulkSize
from bench_runner.precision import (
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_MIN_ITERATIONS,
    DEFAULT_TARGET_PCT,
    DEFAULT_TIME_CAP_S,
    StoppingRule,
)
from bench_runner.verdicts.config import VerdictConfig

BUILTIN_PLANS = (
    "default",
    "smoke",
    "nightly",
    "netconf-sweep",
    "latency-sweep",
    "crypto-sweep",
    "impairment",
    "relays",
    "reproduce-clibench",
    "reproduce-clibench-headend",
    "reproduce-netconf",
    "reproduce-tunnel",
    "reproduce-ssh-libraries",
)


Framing = Literal["1.0", "1.1"]
RestconfEncoding = Literal["json", "xml"]
ReplyBytes = Annotated[int, Field(ge=1, le=64 << 20)]
FleetCount = Annotated[int, Field(ge=1, le=126)]


def _default_bulk_sizes() -> list[BulkSize]:
    return ["10M"]


class PlanError(ValueError):
    pass


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "default"
    profiles: list[str] = Field(default_factory=lambda: ["local"], min_length=1)
    modes: list[str] | Literal["all", "default"] = "default"
    clients: list[str] | Literal["all", "floor"] = "floor"
    iterations: int | None = Field(default=None, ge=1)
    """A fixed count of measured iterations per mode; None: until precise."""
    precision_pct: float = Field(default=DEFAULT_TARGET_PCT, gt=0, le=100)
    """The median's 95 % interval's half-width to reach, in percent of the median."""
    min_iterations: int = Field(default=DEFAULT_MIN_ITERATIONS, ge=1)
    max_iterations: int = Field(default=DEFAULT_MAX_ITERATIONS, ge=1)
    mode_time_cap_s: float = Field(default=DEFAULT_TIME_CAP_S, gt=0)
    """Measured time after which a mode stops short of its precision (the iteration
    running then ends first)."""
    warmup: int = Field(default=2, ge=0)
    commands: list[str] = Field(
        default_factory=lambda: [
            "show version",
            "show clock",
            "show ip interface brief",
            "show inventory",
            "show running-config",
        ],
        min_length=1,
    )
    baseline: str = "ssh/pty-fresh"
    timeout_s: float = Field(default=120.0, ge=1.0)
    netconf_framing: Framing | list[Framing] = "1.1"
    netconf_reply_bytes: ReplyBytes | list[ReplyBytes] = 1024
    tunnel_bulk_sizes: list[BulkSize] = Field(default_factory=_default_bulk_sizes, min_length=1)
    tunnel_bulk_iterations: int | None = Field(default=None, ge=1)
    """Measured iterations of the bulk modes (default: ``iterations``): big downloads
    are slow, so a plan can measure them fewer times than the rest."""
    verdicts: VerdictConfig = Field(default_factory=VerdictConfig)
    """How the run's series are judged against the earlier nights of the plan."""
    fleet_hosts: FleetCount | list[FleetCount] = 1
    """``ssh/fleet-show-version``: how many devices of the lab's fleet an iteration
    connects to; a list measures each (the fleet needs at least the largest)."""
    fleet_repeats: FleetCount | list[FleetCount] = 1
    """``ssh/fleet-show-version``: whole runs over the hosts per iteration; a list
    measures each."""
    restconf_encoding: RestconfEncoding | list[RestconfEncoding] = "json"
    """The RESTCONF reads' encoding (``json``, ``xml``); a list measures each."""
    lan_profile: str = "campus"
    """The LAN hop behind the jump host and the head-end (the device's netem while the
    relayed modes run); ``profiles`` are then the WAN hop's (docs/relays.md)."""

    @field_validator("commands", mode="before")
    @classmethod
    def _commands_not_a_count(cls, commands: object) -> object:
        """A number where the commands belong (clibench's ``--commands 5`` counts them) would
        be sent to the device, and every iteration would fail with ``% Invalid input``:
        refused before anything is measured."""
        listed = commands if isinstance(commands, list) else [commands]
        numbers = [command for command in listed if str(command).strip().isdigit()]
        if numbers:
            raise ValueError(
                "commands are the CLI commands themselves (--commands takes them separated "
                'by semicolons, e.g. --commands "show version;show clock"; a plan lists '
                "them), not a number: the number of commands per iteration is how many are "
                f"listed; got {', '.join(repr(number) for number in numbers)}"
            )
        return commands

    @field_validator("commands")
    @classmethod
    def _no_blank_commands(cls, commands: list[str]) -> list[str]:
        stripped = [command.strip() for command in commands]
        if not all(stripped):
            raise ValueError("commands must not be blank")
        return stripped

    @model_validator(mode="after")
    def _minimum_within_maximum(self) -> "Plan":
        if self.min_iterations > self.max_iterations:
            raise ValueError(
                f"min_iterations ({self.min_iterations}) exceeds max_iterations "
                f"({self.max_iterations})"
            )
        return self

    def stopping_rule(self) -> StoppingRule:
        """When each mode's measured iterations stop."""
        return StoppingRule(
            target_half_width_pct=self.precision_pct,
            fixed_iterations=self.iterations,
            min_iterations=self.min_iterations,
            max_iterations=self.max_iterations,
            time_cap_s=self.mode_time_cap_s,
        )

    def mode_names(self) -> list[str] | None:
        """None for the default six, ``["all"]`` for every mode, else the names."""
        if self.modes == "default":
            return None
        if self.modes == "all":
            return ["all"]
        return list(self.modes)

    def netconf_framings(self) -> list[Framing]:
        """Every framing to measure the NETCONF modes with, in plan order."""
        framings = self.netconf_framing
        return list(dict.fromkeys([framings] if isinstance(framings, str) else framings))

    def netconf_reply_sizes(self) -> list[int]:
        """Every ``<get>`` reply size to measure the NETCONF modes with, in plan order."""
        sizes = self.netconf_reply_bytes
        return list(dict.fromkeys([sizes] if isinstance(sizes, int) else sizes))

    def fleet_host_counts(self) -> list[int]:
        """Every host count to measure the fleet modes with, in plan order."""
        hosts = self.fleet_hosts
        return list(dict.fromkeys([hosts] if isinstance(hosts, int) else hosts))

    def fleet_repeat_counts(self) -> list[int]:
        """Every repeat count to measure the fleet modes with, in plan order."""
        repeats = self.fleet_repeats
        return list(dict.fromkeys([repeats] if isinstance(repeats, int) else repeats))

    def restconf_encodings(self) -> list[RestconfEncoding]:
        """Every encoding to measure the RESTCONF reads with, in plan order."""
        encodings = self.restconf_encoding
        return list(dict.fromkeys([encodings] if isinstance(encodings, str) else encodings))

    def client_names(self) -> list[str]:
        return [self.clients] if isinstance(self.clients, str) else list(self.clients)


def parse_plan(text: str, source: str) -> Plan:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PlanError(f"{source}: not YAML: {exc}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise PlanError(f"{source}: a plan is a mapping, got {type(data).__name__}")
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        raise PlanError(f"{source}: {problems(exc)}") from exc


PRECISION_FIELDS = ("precision_pct", "min_iterations", "max_iterations", "mode_time_cap_s")


def override(plan: Plan, overrides: Mapping[str, object]) -> Plan:
    """``plan`` with ``overrides`` (command-line options) in place of its values. Asking for
    a precision without a count measures until precise, even where the plan fixes one."""
    adaptive = "iterations" not in overrides and any(f in overrides for f in PRECISION_FIELDS)
    try:
        return Plan.model_validate(
            {**plan.model_dump(), **overrides, **({"iterations": None} if adaptive else {})}
        )
    except ValidationError as exc:
        raise PlanError(f"invalid option: {problems(exc)}") from exc


def problems(exc: ValidationError) -> str:
    """Each problem as ``field: message``, without pydantic's input dumps and links."""
    return "; ".join(
        f"{'.'.join(str(part) for part in error['loc'])}: "
        + error["msg"].removeprefix("Value error, ")
        for error in exc.errors()
    )


def load_plan(name_or_path: str | None) -> Plan:
    """A built-in plan by name, or a plan file by path; the ``default`` plan for None."""
    name = name_or_path or "default"
    if name in BUILTIN_PLANS:
        resource = files("bench_runner").joinpath("plans", f"{name}.yaml")
        return parse_plan(resource.read_text(encoding="utf-8"), f"built-in plan {name}")
    path = Path(name)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlanError(
            f"plan {name}: {exc.strerror or exc}; built-in plans: {', '.join(BUILTIN_PLANS)}"
        ) from exc
    return parse_plan(text, str(path))
