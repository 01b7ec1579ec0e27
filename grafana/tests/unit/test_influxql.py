from lab_dashboards.influxql import Column, Select, differs, last, matches, one_of, present, quoted


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


def test_a_tag_is_present_when_it_is_not_empty() -> None:
    """InfluxDB stores no empty tag: a point without the tag compares equal to ''."""
    assert present("ssh_kex") == "\"ssh_kex\" != ''"


def test_a_tag_differs_from_a_literal() -> None:
    """Points without the tag ('' in InfluxDB) differ from any value, so they pass."""
    assert differs("mode", "gnmi/it's") == "\"mode\" != 'gnmi/it\\'s'"
