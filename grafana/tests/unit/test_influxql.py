from lab_dashboards.influxql import Column, Select, last, matches, one_of, quoted


def test_select_text() -> None:
    select = Select(
        (last("p50_ms", "p50"), Column('last("a") / last("n")', "a per n")),
        "mode_summary",
        (matches("run_id", "run_id"),),
        ("series", "profile"),
    )
    assert select.text() == (
        'SELECT last("p50_ms") AS "p50", last("a") / last("n") AS "a per n" '
        'FROM "mode_summary" WHERE "run_id" =~ /^$run_id$/ GROUP BY "series", "profile"'
    )


def test_fixed_values_are_escaped_for_the_regex_literal() -> None:
    assert (
        one_of("mode", ("tunnel/bulk", "https/bulk")) == r'"mode" =~ /^(tunnel\/bulk|https\/bulk)$/'
    )


def test_identifiers_are_quoted() -> None:
    assert quoted('a"b') == '"a\\"b"'
