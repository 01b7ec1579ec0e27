"""Payloads a sink could not deliver, kept as files until a replay delivers them."""

import os
from dataclasses import dataclass
from pathlib import Path

INFLUX_SUFFIX = ".lp"
PUSHGATEWAY_SUFFIX = ".pushgateway.json"
CORRUPT_DIR = "corrupt"
"""Where a file that no replay could ever deliver is set aside, under the spool."""


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
        """Spooled files of one kind, in the order they were written. Names are run ids,
        which a user may choose (``--run-id``), so they say nothing about time: the file's
        modification time does (``save`` renames, which keeps it), the name breaking ties."""
        if not self.directory.is_dir():
            return []
        found = [
            path
            for path in self.directory.iterdir()
            if path.name.endswith(suffix) and path.is_file()
        ]
        return sorted(found, key=lambda path: (path.stat().st_mtime_ns, path.name))

    def set_aside(self, path: Path) -> Path:
        """Move a file out of the way of every later replay, into ``corrupt/``; an existing
        file of the same name there is not overwritten."""
        corrupt = self.directory / CORRUPT_DIR
        corrupt.mkdir(exist_ok=True)
        target = corrupt / path.name
        counter = 1
        while target.exists():
            target = corrupt / f"{path.name}.{counter}"
            counter += 1
        os.replace(path, target)
        return target
