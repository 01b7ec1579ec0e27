"""Runner settings, read from the environment (names per the lab contract)."""

from pathlib import Path

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Environment of the runner; defaults match the compose service names."""

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore")

    device_host: str = "device"
    device_ssh_port: int = 22
    device_https_port: int = 443
    device_netconf_port: int = 830
    device_metrics_url: str = "http://device:9100"
    device_username: str | None = None
    device_password: SecretStr | None = None

    # Empty string is allowed so that `--netem none` runs are explicit; see cli.run.
    netem_url: str = "http://device:8181"

    influx_url: str = "http://influxdb:8086"
    influx_db: str = "transport_lab"
    influx_username: str | None = None
    influx_password: SecretStr | None = None

    pushgateway_url: str = "http://pushgateway:9091"

    results_dir: Path = Path("/results")

    lab_commit: str | None = None
    lab_images: str | None = None

    @property
    def spool_dir(self) -> Path:
        return self.results_dir / "spool"
