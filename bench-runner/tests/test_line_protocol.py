import pytest

from bench_runner.sinks.line_protocol import (
    Point,
    escape_key,
    escape_measurement,
    format_field_value,
    format_point,
    format_points,
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
        timestamp_ms=1_763_809_200_000,
    )
    assert format_point(point) == (
        r"iteration,client=asyncssh,mode=ssh/fresh-conn,run_id=r\ 1 "
        r'wall_ms=12.25,iteration=3i,ok=false,error="bad \"x\", y=1" 1763809200000'
    )


def test_point_without_fields_is_rejected() -> None:
    with pytest.raises(ValueError, match="no fields"):
        format_point(Point("m", {}, {"p95_ms": None}, 0))


def test_format_points_one_line_each() -> None:
    points = [Point("m", {"t": "a"}, {"v": 1}, 1), Point("m", {"t": "b"}, {"v": 2}, 2)]
    assert format_points(points) == "m,t=a v=1i 1\nm,t=b v=2i 2\n"
