"""``--targets inventory.yaml``: real devices instead of the emulator.

```yaml
lab: false                     # true: the lab's emulated devices (`bench-runner inventory`)
targets:
  - name: edge-r1              # required, used in run ids
    host: 198.18.10.1          # required
    ssh_port: 22               # default 22
    https_port: 443            # default 443
    netconf_port: 830          # default 830
    gnmi_port: 9339            # default 9339 (TCP)
    gnmi_tls_verify: false     # verify the device's certificate on gNMI (default false)
    platform: cisco_iosxe      # recorded only
    username_env: EDGE_R1_USERNAME   # environment variable names; default DEVICE_USERNAME
    password_env: EDGE_R1_PASSWORD   # and DEVICE_PASSWORD
    metrics_url: null          # a device metrics endpoint, if it has one
    relay: site-a              # reached through this site's jump host / head-end (below)
relays:                        # optional: the relayed modes' ways in (docs/relays.md)
  site-a:
    jump_host: 198.18.10.5     # required
    jump_port: 22              # default 22
    jump_username_env: SITE_A_JUMP_USERNAME   # the jump host's own credentials
    jump_password_env: SITE_A_JUMP_PASSWORD
    headend: null              # a head-end's address, if the site has one (proxy modes)
    headend_https_port: 443    # default 443 (and headend_h3_port, UDP, default 443)
    headend_username_env: HEADEND_USERNAME    # its API's credentials (these are the defaults)
    headend_password_env: HEADEND_PASSWORD
```

Credentials never live in the file: only the names of the environment variables that hold
them; a relay's are its own, not the devices'. ``lab: true`` marks the lab's own emulated
devices (one device container's fleet): the run then drives netem's profile, under the lab's
run lock, and verifies the RTT on each device; real devices' latency is whatever their
network has.
"""

import os
from collections.abc import Mapping
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bench_runner.modes import Relay, Target
from bench_runner.plan import PlanError


def _secret(owner: str, names: tuple[str, ...]) -> list[str]:
    """The values of the environment variables ``names``; PlanError naming those not set."""
    missing = [name for name in names if not os.environ.get(name)]
    if missing:
        raise PlanError(f"{owner}: environment variable(s) {', '.join(missing)} not set")
    return [os.environ[name] for name in names]


class RelaySpec(BaseModel):
    """A site's jump host and, optionally, its head-end."""

    model_config = ConfigDict(extra="forbid")

    jump_host: str
    jump_port: int = Field(default=22, ge=1, le=65535)
    jump_username_env: str = "JUMP_USERNAME"
    jump_password_env: str = "JUMP_PASSWORD"
    headend: str | None = None
    headend_https_port: int = Field(default=443, ge=1, le=65535)
    headend_h3_port: int = Field(default=443, ge=1, le=65535)
    headend_username_env: str = "HEADEND_USERNAME"
    headend_password_env: str = "HEADEND_PASSWORD"

    def relay(self, name: str) -> Relay:
        username, password = _secret(
            f"relay {name}", (self.jump_username_env, self.jump_password_env)
        )
        headend_username = headend_password = ""
        if self.headend is not None:
            headend_username, headend_password = _secret(
                f"relay {name}", (self.headend_username_env, self.headend_password_env)
            )
        return Relay(
            jump_host=self.jump_host,
            jump_port=self.jump_port,
            jump_username=username,
            jump_password=password,
            headend_host=self.headend or "",
            headend_https_port=self.headend_https_port,
            headend_username=headend_username,
            headend_password=headend_password,
            headend_h3_port=self.headend_h3_port,
        )


class TargetSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9._-]+$")
    host: str
    ssh_port: int = Field(default=22, ge=1, le=65535)
    https_port: int = Field(default=443, ge=1, le=65535)
    netconf_port: int = Field(default=830, ge=1, le=65535)
    h3_port: int = Field(default=443, ge=1, le=65535)
    """UDP."""
    gnmi_port: int = Field(default=9339, ge=1, le=65535)
    gnmi_tls_verify: bool = False
    """Verify the device's certificate on gNMI channels (against the system's roots)."""
    platform: str | None = None
    username_env: str = "DEVICE_USERNAME"
    password_env: str = "DEVICE_PASSWORD"
    metrics_url: str | None = None
    relay: str | None = None
    """The name of the site (``relays``) whose jump host and head-end reach this device."""

    def target(self, relays: Mapping[str, RelaySpec] | None = None) -> Target:
        username, password = _secret(f"target {self.name}", (self.username_env, self.password_env))
        relay = None
        if self.relay is not None:
            spec = (relays or {}).get(self.relay)
            if spec is None:
                raise PlanError(f"target {self.name}: no relay {self.relay!r} under relays")
            relay = spec.relay(self.relay)
        return Target(
            host=self.host,
            ssh_port=self.ssh_port,
            https_port=self.https_port,
            netconf_port=self.netconf_port,
            h3_port=self.h3_port,
            gnmi_port=self.gnmi_port,
            gnmi_tls_verify=self.gnmi_tls_verify,
            username=username,
            password=password,
            relay=relay,
        )


class Inventory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lab: bool = False
    targets: list[TargetSpec] = Field(min_length=1)
    relays: dict[str, RelaySpec] = Field(default_factory=dict)


CONTAINER_RESULTS = Path("/results")
"""Where the lab's runner container sees the host's results/ directory."""


def load_inventory(path: Path) -> Inventory:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        inventory = Inventory.model_validate(data)
    except FileNotFoundError as exc:
        hint = ""
        if CONTAINER_RESULTS.is_dir() and CONTAINER_RESULTS not in path.absolute().parents:
            hint = (
                f" (the runner's container sees only the results directory, as "
                f"{CONTAINER_RESULTS}: put the file under results/ and pass "
                f"{CONTAINER_RESULTS / path.name}, or use make bench-targets "
                f"TARGETS=results/{path.name})"
            )
        raise PlanError(f"inventory {path}: no such file{hint}") from exc
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise PlanError(f"inventory {path}: {exc}") from exc
    names = [spec.name for spec in inventory.targets]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise PlanError(f"inventory {path}: duplicate target name(s) {', '.join(duplicates)}")
    return inventory
