"""InfluxQL for the dashboards: a SELECT builder and the InfluxDB panel target.

The Grafana Foundation SDK has no InfluxDB query type, so ``InfluxTarget`` is the small
one these dashboards need: a raw InfluxQL query (``rawQuery``), its result format and an
alias. Grafana's InfluxDB backend turns ``table`` results into one frame with the GROUP BY
tags as string columns (what bar charts, tables and XY charts want), and ``time_series``
results into one frame per series and column, named by the alias (``$tag_series``).

Variables are matched as anchored regular expressions (``"mode" =~ /^$mode$/``): Grafana
escapes a value's ``/`` and ``.`` there, joins a multi-value selection as ``(a|b)`` and puts
the custom "All" value ``.*`` in raw, which also matches points without that tag.
"""

from dataclasses import dataclass
from typing import Literal

from bench_runner.influx_schema import SummaryField
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.cog import variants as cogvariants
from grafana_foundation_sdk.models.common import DataSourceRef

ResultFormat = Literal["table", "time_series"]


def quoted(identifier: str) -> str:
    """An InfluxQL identifier in double quotes (field, tag, measurement or alias)."""
    return '"' + identifier.replace("\\", "\\\\").replace('"', '\\"') + '"'


def matches(tag: str, variable: str) -> str:
    """``tag`` matches the dashboard variable's selection."""
    return f"{quoted(tag)} =~ /^${variable}$/"


def _literal(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


def equals(tag: str, value: str) -> str:
    """``tag`` is ``value`` (a string literal)."""
    return f"{quoted(tag)} = {_literal(value)}"


def differs(tag: str, value: str) -> str:
    """``tag`` is not ``value`` (a string literal); points without the tag pass."""
    return f"{quoted(tag)} != {_literal(value)}"


def present(tag: str) -> str:
    """The point carries ``tag`` (InfluxDB has no empty tag value: an absent one is '')."""
    return f"{quoted(tag)} != ''"


def one_of(tag: str, values: tuple[str, ...]) -> str:
    """``tag`` is one of fixed ``values`` (escaped for the regex literal)."""
    escaped = "|".join(value.replace("/", "\\/").replace(".", "\\.") for value in values)
    return f"{quoted(tag)} =~ /^({escaped})$/"


@dataclass(frozen=True)
class Column:
    """``function("field")`` or an expression, shown as ``name``."""

    expression: str
    name: str

    def text(self) -> str:
        return f"{self.expression} AS {quoted(self.name)}"


def last(field: str, name: str) -> Column:
    return Column(f"last({quoted(field)})", name)


def raw(field: str, name: str) -> Column:
    return Column(quoted(field), name)


def per_iteration_ms(field_s: str, name: str) -> Column:
    """A per-mode total in seconds as milliseconds per measured iteration."""
    return Column(f"last({quoted(field_s)}) / last({quoted(SummaryField.N)}) * 1000", name)


@dataclass(frozen=True)
class Select:
    columns: tuple[Column, ...]
    measurement: str
    where: tuple[str, ...] = ()
    group_by: tuple[str, ...] = ()

    def text(self) -> str:
        query = (
            f"SELECT {', '.join(column.text() for column in self.columns)} "
            f"FROM {quoted(self.measurement)}"
        )
        if self.where:
            query += " WHERE " + " AND ".join(self.where)
        if self.group_by:
            query += " GROUP BY " + ", ".join(quoted(tag) for tag in self.group_by)
        return query


class InfluxTarget(cogvariants.Dataquery):
    """A panel target of the InfluxDB datasource with a raw InfluxQL query."""

    def __init__(
        self,
        ref_id: str,
        datasource: DataSourceRef,
        query: str,
        result_format: ResultFormat,
        alias: str | None,
    ) -> None:
        self.ref_id = ref_id
        self.datasource = datasource
        self.query = query
        self.result_format = result_format
        self.alias = alias

    def to_json(self) -> dict[str, object]:
        payload: dict[str, object] = {
            "refId": self.ref_id,
            "datasource": self.datasource.to_json(),
            "query": self.query,
            "rawQuery": True,
            "resultFormat": self.result_format,
        }
        if self.alias is not None:
            payload["alias"] = self.alias
        return payload


class InfluxQuery(cogbuilder.Builder[InfluxTarget]):
    def __init__(
        self,
        datasource: DataSourceRef,
        select: Select | str,
        result_format: ResultFormat = "table",
        ref_id: str = "A",
        alias: str | None = None,
    ) -> None:
        self._target = InfluxTarget(
            ref_id,
            datasource,
            select if isinstance(select, str) else select.text(),
            result_format,
            alias,
        )

    def build(self) -> InfluxTarget:
        return self._target
