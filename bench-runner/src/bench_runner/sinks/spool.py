"""Payloads a sink could not deliver, kept as files until a replay delivers them."""

import os
from dataclasses import dataclass
from pathlib import Path

INFLUX_SUFFIX = ".lp"
PUSHGATEWAY_SUFFIX = ".pushgateway.json"


@dataclass(frozen=True)
class Spool:
    directory: Path

    def save(self, name: str, payload: str) -> Path:
        """Write ``payload`` to ``<directory>/<name>`` atomically (a crash leaves no half file
        that a replay would send)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / name
        partial = path.with_name(path.name + ".partial")
        partial.write_text(payload, encoding="utf-8")
        os.replace(partial, path)
        return path

    def pending(self, suffix: str) -> list[Path]:
        """Spooled files of one kind, oldest name first (names start with a UTC timestamp)."""
        if not self.directory.is_dir():
            return []
        return sorted(path for path in self.directory.iterdir() if path.name.endswith(suffix))
