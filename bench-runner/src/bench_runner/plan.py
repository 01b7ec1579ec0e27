"""Plan files: profiles x modes x clients x iterations x commands, as YAML.

Every field is optional; a missing field takes the value of the built-in ``default`` plan.
``modes`` is a list of mode names, ``all`` (every mode) or ``default`` (the six original
modes); ``clients`` a list of client names, ``floor`` (asyncssh, httpx, Python ssl) or
``all``. ``netconf_framing`` (``1.1`` chunked, or ``1.0`` end-of-message) and
``netconf_reply_bytes`` set what the NETCONF modes ask for. Built-in plans (``default``,
``smoke``, ``nightly``) are named without a path;
command-line options override the plan's values.
"""

from importlib.resources import files
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

BUILTIN_PLANS = ("default", "smoke", "nightly")


class PlanError(ValueError):
    pass


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "default"
    profiles: list[str] = Field(default_factory=lambda: ["local"], min_length=1)
    modes: list[str] | Literal["all", "default"] = "default"
    clients: list[str] | Literal["all", "floor"] = "floor"
    iterations: int = Field(default=20, ge=1)
    warmup: int = Field(default=2, ge=0)
    commands: list[str] = Field(default_factory=lambda: [
        "show version", "show clock", "show ip interface brief", "show inventory",
        "show running-config",
    ], min_length=1)
    baseline: str = "ssh/pty-fresh"
    timeout_s: float = Field(default=120.0, ge=1.0)
    netconf_framing: Literal["1.0", "1.1"] = "1.1"
    netconf_reply_bytes: int = Field(default=1024, ge=1, le=64 << 20)

    @field_validator("commands")
    @classmethod
    def _no_blank_commands(cls, commands: list[str]) -> list[str]:
        stripped = [command.strip() for command in commands]
        if not all(stripped):
            raise ValueError("commands must not be blank")
        return stripped

    def mode_names(self) -> list[str] | None:
        """None for the default six, ``["all"]`` for every mode, else the names."""
        if self.modes == "default":
            return None
        if self.modes == "all":
            return ["all"]
        return list(self.modes)

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
        raise PlanError(f"{source}: {exc}") from exc


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
        raise PlanError(f"plan {name}: {exc.strerror or exc}; built-in plans: "
                        f"{', '.join(BUILTIN_PLANS)}") from exc
    return parse_plan(text, str(path))
