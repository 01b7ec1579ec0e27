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
```

Credentials never live in the file: only the names of the environment variables that hold
them. ``lab: true`` marks the lab's own emulated devices (one device container's fleet): the
run then drives netem's profile, under the lab's run lock, and verifies the RTT on each
device; real devices' latency is whatever their network has.
"""

import os
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bench_runner.modes import Target
from bench_runner.plan import PlanError


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

    def target(self) -> Target:
        missing = [
            name for name in (self.username_env, self.password_env) if not os.environ.get(name)
        ]
        if missing:
            raise PlanError(
                f"target {self.name}: environment variable(s) {', '.join(missing)} not set"
            )
        return Target(
            host=self.host,
            ssh_port=self.ssh_port,
            https_port=self.https_port,
            netconf_port=self.netconf_port,
            h3_port=self.h3_port,
            gnmi_port=self.gnmi_port,
            gnmi_tls_verify=self.gnmi_tls_verify,
            username=os.environ[self.username_env],
            password=os.environ[self.password_env],
        )


class Inventory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lab: bool = False
    targets: list[TargetSpec] = Field(min_length=1)


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
