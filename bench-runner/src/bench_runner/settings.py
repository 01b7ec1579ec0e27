"""Runner settings, read from the environment (names per the lab contract)."""

from pathlib import Path

from pydantic import SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Environment of the runner; defaults match the compose service names."""

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore")

    device_host: str = "device"
    device_ssh_port: int = 22
    device_https_port: int = 443
    device_netconf_port: int = 830
    device_h3_port: int = 443
    device_gnmi_port: int = 9339
    device_metrics_url: str = "http://device:9100"
    device_username: str | None = None
    device_password: SecretStr | None = None

    # Empty string is allowed so that `--netem none` runs are explicit; see lab_run.run.
    netem_url: str = "http://device:8181"

    # The remote site (docs/relays.md): the jump host and the head-end share a namespace and
    # the WAN link netem_wan_url impairs; the device's own netem is then the LAN hop.
    jump_host: str = "jumphost"
    jump_ssh_port: int = 22
    jump_username: str | None = None
    jump_password: SecretStr | None = None
    headend_host: str = "headend"
    headend_https_port: int = 443
    headend_h3_port: int = 443
    headend_username: str | None = None
    headend_password: SecretStr | None = None
    netem_wan_url: str = "http://jumphost:8181"
    netem_wan_reference_port: int = 8181
    """An unimpaired TCP port on the relay (netem-wan's API): the WAN gate's reference."""

    influx_url: str = "http://influxdb:8086"
    influx_db: str = "transport_lab"
    influx_username: str | None = None
    influx_password: SecretStr | None = None

    pushgateway_url: str = "http://pushgateway:9091"

    results_dir: Path = Path("/results")
    results_host_dir: Path | None = None
    """The host directory mounted at ``results_dir`` (compose sets it): the paths the runner
    prints are the user's, not the container's. Unset or empty: ``results_dir`` is shown."""

    lab_commit: str | None = None
    lab_images: str | None = None
    lab_engine: str | None = None
    """The container engine the lab runs on (make passes `docker version`'s; no container
    can ask the engine itself without its socket)."""

    @field_validator("results_host_dir", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return value or None

    @property
    def spool_dir(self) -> Path:
        return self.results_dir / "spool"

    def shown_path(self, path: Path) -> Path:
        """``path`` (under ``results_dir``) where the user finds it: on the host when
        ``results_host_dir`` says where ``results_dir`` is mounted."""
        if self.results_host_dir is None or not path.is_relative_to(self.results_dir):
            return path
        return self.results_host_dir / path.relative_to(self.results_dir)
