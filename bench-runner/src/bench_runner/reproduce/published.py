"""The published figures of the benchmarks the lab reproduces, one cited YAML file per
experiment in ``published/`` (``EXPERIMENTS``).

A file names its source (author, title, URL, publication date as far as it is known, the day
it was read), the publication's conditions, what differs on the lab, the plan that reruns it,
its ``subjects`` (what the publication ranks: a name, and the lab ``mode`` and ``client``
that measure it, or neither when the lab cannot), its ``metrics`` (each with the lab mode
that measures it when that differs per metric), the ``reference`` subject ratios are taken
against, and its ``figures``: one published number per case x subject x metric. A case is
the publication's condition as lab terms: ``profile`` (a netem profile) and any key of a
mode's ``parameters`` (``framing``, ``reply_bytes``, ``bulk_size``; the fleet experiment's
``hosts`` and ``repeats``; a Locust sweep's ``users`` per step), or one of the experiment's
``publication_keys``, which only tell the publication's own conditions apart and match any
lab run.
"""

from importlib.resources import files
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

EXPERIMENTS = (
    "clibench",
    "ssh-libraries",
    "netconf",
    "tunnel",
    "parallel-ssh",
    "clibench-headend",
)

Metric = Literal[
    "p50_ms",
    "throughput_mib_s",
    "requests_per_s",
    "rpc_total_ms",
    "setup_ms",
    "session_ms",
    "command_ms",
]
CaseValue = str | int


class PublishedError(ValueError):
    pass


class Source(BaseModel):
    model_config = ConfigDict(extra="forbid")

    author: str
    title: str
    url: str
    published: str
    accessed: str
    data: list[str] = []


class Subject(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    mode: str | None = None
    client: str | None = None
    note: str | None = None
    ranked: bool = True
    """False when the lab's mode times a different operation than the publication's (its
    note says how): its figures are shown, but it takes no part in the ranking."""


class MetricSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Metric
    mode: str | None = None
    """The lab mode measuring this metric, when it is not the subject's."""


class Figure(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case: dict[str, CaseValue]
    subject: str
    metric: Metric
    value: float


class Experiment(BaseModel):
    model_config = ConfigDict(extra="forbid")

    experiment: str
    title: str
    plan: str
    """The bench-runner plan that reruns it; for ``runs_on: locust``, the ``--plan`` label
    its Locust sweep records in results.json."""
    runs_on: Literal["bench-runner", "locust"] = "bench-runner"
    source: Source
    conditions: dict[str, str]
    differences: list[str]
    reference: str
    relative: bool = False
    """The publication gives ratios only: each figure is the subject's time over the
    reference's in that case (the reference's is 1)."""
    requests: int = Field(default=1, ge=1)
    """Requests one published figure covers (``rpc_total_ms``): the lab's mean per request
    times this."""
    publication_keys: list[str] = []
    """Case keys that only tell the publication's conditions apart (e.g. ``nos``: it
    measured the same case on several network operating systems): shown in the table's
    heading, not matched against the lab's runs, whose one device stands for each."""
    metrics: list[MetricSpec] = Field(min_length=1)
    subjects: list[Subject] = Field(min_length=1)
    notes: list[str] = []
    figures: list[Figure] = Field(min_length=1)

    @model_validator(mode="after")
    def _names_resolve(self) -> "Experiment":
        """Every figure's subject and metric, and the reference, are declared: a typo would
        otherwise drop a published number from the table without a word."""
        subjects = {subject.name for subject in self.subjects}
        metrics = {metric.name for metric in self.metrics}
        if self.reference not in subjects:
            raise ValueError(f"reference {self.reference!r} is not a subject")
        for figure in self.figures:
            if figure.subject not in subjects:
                raise ValueError(f"figure of undeclared subject {figure.subject!r}")
            if figure.metric not in metrics:
                raise ValueError(f"figure of undeclared metric {figure.metric!r}")
        return self

    def lab_mode(self, subject: Subject, metric: Metric) -> str | None:
        """The lab mode measuring ``metric`` of ``subject``: the metric's own, else the
        subject's; None when the lab has no client for the subject."""
        if subject.client is None:
            return None
        spec = next(spec for spec in self.metrics if spec.name == metric)
        return spec.mode or subject.mode


def parse_experiment(text: str, source: str) -> Experiment:
    try:
        return Experiment.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as exc:
        raise PublishedError(f"{source}: {exc}") from exc


def load_experiment(name: str) -> Experiment:
    """The published data of experiment ``name`` (one of ``EXPERIMENTS``)."""
    resource = files("bench_runner").joinpath("reproduce", "published", f"{name}.yaml")
    return parse_experiment(resource.read_text(encoding="utf-8"), f"published/{name}.yaml")
