"""Writing a run's or sweep's JSON document (result_file.py): its directory made, the
document whole as the model dumps it, nothing half-written left beside it, a second write
replacing the first."""

import json
from pathlib import Path

from pydantic import BaseModel

from bench_runner.result_file import write_result_file


class Sample(BaseModel):
    run_id: str
    figures: list[float]


def test_the_document_is_written_whole_into_its_new_directory(tmp_path: Path) -> None:
    directory = tmp_path / "results" / "run-1"
    path = write_result_file(Sample(run_id="run-1", figures=[1.5, 2.0]), directory, "hold.json")
    assert path == directory / "hold.json"
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert json.loads(text) == {"run_id": "run-1", "figures": [1.5, 2.0]}
    assert [entry.name for entry in directory.iterdir()] == ["hold.json"]


def test_writing_again_replaces_the_document(tmp_path: Path) -> None:
    write_result_file(Sample(run_id="run-1", figures=[1.0]), tmp_path, "fleet-job.json")
    path = write_result_file(Sample(run_id="run-1", figures=[]), tmp_path, "fleet-job.json")
    assert json.loads(path.read_text(encoding="utf-8"))["figures"] == []
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["fleet-job.json"]
