"""Every measurement, tag and field a dashboard queries is one the lab writes: a name in
bench_runner.influx_schema, which the runner's sink and the load generator write from."""

import re
from collections.abc import Iterator
from typing import Any

import pytest
from bench_runner.hop_split import HOP_PARTS
from bench_runner.influx_schema import field_names, tag_names
from bench_runner.phases import PHASES
from bench_runner.wire.model import FIELDS as WIRE_COUNTERS
from bench_runner.wire.timeline import PARTS as TIME_PARTS

from lab_dashboards.boards import BOARDS

SELECT = re.compile(
    r'SELECT (?P<columns>.+?) FROM "(?P<measurement>\w+)"'
    r"(?: WHERE (?P<where>.+?))?(?: GROUP BY (?P<group_by>.+))?"
)
SHOW_TAG_VALUES = re.compile(
    r'SHOW TAG VALUES FROM "(?P<measurement>\w+)" WITH KEY = "(?P<key>\w+)"'
    r"(?: WHERE (?P<where>.+))?"
)
ALIAS = re.compile(r' AS "[^"]*"')
IDENTIFIER = re.compile(r'"(\w+)"')
COMPARED = re.compile(r'"(\w+)" =~? ')


def influx_queries(document: dict[str, Any]) -> Iterator[str]:
    """The InfluxQL of every panel target, template variable and annotation."""
    nodes = [
        *(
            target
            for panel in document["panels"]
            for item in [panel, *panel.get("panels", [])]
            for target in item.get("targets", [])
        ),
        *document["templating"]["list"],
        *document["annotations"]["list"],
    ]
    for node in nodes:
        if node.get("datasource", {}).get("type") == "influxdb":
            yield str(node["query"])


def fields(measurement: str) -> frozenset[str]:
    return field_names(measurement, PHASES, WIRE_COUNTERS, TIME_PARTS, HOP_PARTS)


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_every_queried_name_is_written_by_the_lab(board: str) -> None:
    queries = list(influx_queries(BOARDS[board]()))
    assert queries, board
    for query in queries:
        select = SELECT.fullmatch(query)
        show = SHOW_TAG_VALUES.fullmatch(query)
        assert select or show, query
        if select:
            measurement = select["measurement"]
            columns = IDENTIFIER.findall(ALIAS.sub("", select["columns"]))
            assert set(columns) <= fields(measurement), query
            assert set(IDENTIFIER.findall(select["group_by"] or "")) <= tag_names(), query
        else:
            measurement = show["measurement"]
            assert show["key"] in tag_names(), query
        where = (select or show)["where"] or ""
        assert set(COMPARED.findall(where)) <= tag_names() | fields(measurement), query
