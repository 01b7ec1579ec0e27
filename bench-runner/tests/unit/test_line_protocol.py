import pytest

from bench_runner.sinks.line_protocol import (
    Point,
    count_points,
    distinct_timestamps,
    escape_key,
    escape_measurement,
    format_field_value,
    format_point,
    format_points,
    timestamp_precision,
)


def test_escape_key_handles_comma_equals_space() -> None:
    assert escape_key("a b,c=d") == r"a\ b\,c\=d"


def test_escape_measurement_leaves_equals_alone() -> None:
    assert escape_measurement("my m,x=y") == r"my\ m\,x=y"


def test_newlines_become_spaces() -> None:
    assert escape_key("two\nlines") == r"two\ lines"
    assert format_field_value("a\r\nb") == '"a b"'


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, "true"),
        (False, "false"),
        (7, "7i"),
        (0, "0i"),
        (1.5, "1.5"),
        (2.0, "2.0"),
        ('say "hi"', r'"say \"hi\""'),
        ("C:\\path", r'"C:\\path"'),
        ("% Invalid input detected at '^' marker.", "\"% Invalid input detected at '^' marker.\""),
    ],
)
def test_field_values(value: bool | int | float | str, expected: str) -> None:
    assert format_field_value(value) == expected


def test_non_finite_float_is_rejected() -> None:
    with pytest.raises(ValueError, match="nan"):
        format_field_value(float("nan"))


def test_point_sorts_tags_skips_empty_tags_and_none_fields() -> None:
    point = Point(
        measurement="iteration",
        tags={"mode": "ssh/fresh-conn", "run_id": "r 1", "engine": "", "client": "asyncssh"},
        fields={"wall_ms": 12.25, "iteration": 3, "ok": False, "error": 'bad "x", y=1'},
        timestamp_ns=1_763_809_200_000_000_000,
    )
    assert format_point(point) == (
        r"iteration,client=asyncssh,mode=ssh/fresh-conn,run_id=r\ 1 "
        r'wall_ms=12.25,iteration=3i,ok=false,error="bad \"x\", y=1" 1763809200000000000'
    )


def test_point_without_fields_is_rejected() -> None:
    with pytest.raises(ValueError, match="no fields"):
        format_point(Point("m", {}, {"p95_ms": None}, 0))


def test_format_points_one_line_each() -> None:
    points = [Point("m", {"t": "a"}, {"v": 1}, 1), Point("m", {"t": "b"}, {"v": 2}, 2)]
    assert format_points(points) == "m,t=a v=1i 1\nm,t=b v=2i 2\n"


def test_colliding_points_of_a_series_move_to_the_next_free_nanosecond() -> None:
    """Two iterations that start in the same instant would be one point in InfluxDB."""
    points = [
        Point("iteration", {"mode": "a"}, {"v": 1}, 100),
        Point("iteration", {"mode": "a"}, {"v": 2}, 100),
        Point("iteration", {"mode": "b"}, {"v": 3}, 100),  # another series: no collision
        Point("iteration", {"mode": "a"}, {"v": 4}, 101),  # its own slot was taken
        Point("iteration", {"mode": "a", "x": ""}, {"v": 5}, 50),  # empty tag: same series
    ]
    assert [point.timestamp_ns for point in distinct_timestamps(points)] == [100, 101, 100, 102, 50]


def test_points_that_do_not_collide_keep_their_timestamps() -> None:
    points = [Point("m", {"t": "a"}, {"v": 1}, 3), Point("m", {"t": "a"}, {"v": 2}, 1)]
    assert distinct_timestamps(points) == points


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ("m v=1i 1763809200000\n", "ms"),
        ("\nm,t=a v=1i 1763809200000000000\nm v=2i 1\n", "ns"),
    ],
)
def test_timestamp_precision_of_a_payload(lines: str, expected: str) -> None:
    assert timestamp_precision(lines) == expected


def test_timestamp_precision_refuses_what_is_not_line_protocol() -> None:
    with pytest.raises(ValueError, match="no timestamp"):
        timestamp_precision('{"not": "line protocol"}')


def test_count_points_ignores_blank_lines() -> None:
    assert count_points("m v=1i 1\n\nm v=2i 2\n") == 2
