"""Writing one JSON document of a run or sweep (results.json, fleet-job.json,
fleet-sweep.json, hold.json) into its own directory under the results directory."""

import os
from pathlib import Path

from pydantic import BaseModel


def write_result_file(document: BaseModel, directory: Path, name: str) -> Path:
    """Write ``<directory>/<name>``, renamed into place so no reader sees half of it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    partial = path.with_suffix(".json.partial")
    partial.write_text(document.model_dump_json(indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return path
