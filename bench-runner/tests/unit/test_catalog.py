"""The catalog: every bound argued by the text beside it, every plugin there to load, every
client ordered and scoped, counts written and read the same way, and docs/modes.md what the
catalog generates."""

import os
from pathlib import Path

import pytest

from bench_runner.modes import ALL_MODES
from bench_runner.modes.base import PerIteration
from bench_runner.modes.catalog import CLIENT_SCOPE, DEFINITIONS, FLOOR_CLIENTS, LIBRARIES, ROWS
from bench_runner.modes.row import ModeDefinition, Row, plugin
from bench_runner.modes.table import markdown
from prerequisites import missing


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.name)
def test_each_lower_bound_is_the_one_its_argument_states(definition: ModeDefinition) -> None:
    assert definition.stated_lower_bound() == definition.lower_bound


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"{row.name}@{row.client}")
def test_each_expected_count_is_the_one_its_evidence_states(row: Row) -> None:
    assert row.stated_expected() == row.expected
    for n in range(1, 8):
        assert row.mode.lower_bound.at(n) <= row.expected.at(n)


def test_a_bound_stated_twice_or_not_at_all_is_refused() -> None:
    row = ROWS[0]
    for evidence in ("no count here", "Expected: 3n round trips. Expected: 4n round trips."):
        broken = Row(row.mode, row.client, row.description, row.expected, evidence, row.session)
        with pytest.raises(ValueError, match="stated once"):
            broken.stated_expected()


@pytest.mark.parametrize("row", ROWS, ids=lambda row: f"{row.name}@{row.client}")
def test_every_plugin_a_row_names_loads(row: Row) -> None:
    for named in (row.session, row.version, row.wire_hosts):
        if named is not None:
            assert callable(named.load()), named.path
    if row.wire_hosts is not None:  # a fleet row: its library's host runner
        host = dict(row.session.options)["host"]
        assert callable(plugin(f"{host}:fleet_host").load())


def test_one_row_per_mode_and_client_and_every_client_ordered() -> None:
    pairs = [(row.name, row.client) for row in ROWS]
    assert len(pairs) == len(set(pairs))
    clients = {row.client for row in ROWS}
    assert clients == set(FLOOR_CLIENTS) | set(LIBRARIES)
    assert set(CLIENT_SCOPE) <= clients
    assert {row.client for row in ROWS if row.floor} == set(FLOOR_CLIENTS)
    assert {row.mode for row in ROWS} == set(DEFINITIONS)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("0", PerIteration()),
        ("2", PerIteration(fixed=2)),
        ("n", PerIteration(per_command=1)),
        ("4n", PerIteration(per_command=4)),
        ("n + 6", PerIteration(per_command=1, fixed=6)),
        ("2n + 17", PerIteration(per_command=2, fixed=17)),
    ],
)
def test_counts_are_written_as_they_are_read(text: str, count: PerIteration) -> None:
    assert str(count) == text
    assert PerIteration.parse(text) == count


@pytest.mark.parametrize("text", ["", "n +", "three", "2m", "+ 1"])
def test_a_malformed_count_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a count per iteration"):
        PerIteration.parse(text)


def test_shapes_compare_fresh_and_batch_modes_like_for_like() -> None:
    """Per iteration of five commands: how many connections a mode opens and how many
    commands one request carries."""
    shapes = {
        (mode.name, mode.connections_per_iteration(5), mode.commands_per_request(5))
        for mode in ALL_MODES
        if mode.floor
    }
    assert ("ssh/fresh-conn", 5, 1) in shapes
    assert ("https/fresh-conn", 5, 1) in shapes
    assert ("netconf/fresh-session", 1, 1) in shapes
    assert ("ssh/batch-exec", 0, 5) in shapes
    assert ("https/batch-post", 0, 5) in shapes
    assert ("https/bulk", 0, None) in shapes
    # HTTP/3 as HTTPS: a connection per command when fresh, resumed or 0-RTT; none when kept.
    assert ("h3/fresh-conn", 5, 1) in shapes
    assert ("h3/resumed", 5, 1) in shapes
    assert ("h3/0rtt", 5, 1) in shapes
    assert ("h3/keep-alive", 0, 1) in shapes
    assert ("h3/batch-post", 0, 5) in shapes
    assert ("h3/multi-cmd", 0, 1) in shapes


def test_the_modes_page_is_what_the_catalog_generates() -> None:
    """docs/modes.md is generated (``make docs-modes``); the test target mounts docs/."""
    docs = Path(os.environ.get("DOCS_DIR", Path(__file__).parents[3] / "docs"))
    page = docs / "modes.md"
    if not page.is_file():
        missing(f"{page} (mount the repository's docs/ and set DOCS_DIR)")
    assert page.read_text() == markdown(), "docs/modes.md is stale: run `make docs-modes`"
