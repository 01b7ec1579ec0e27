"""Grafana's template substitution, for the queries of the lab's dashboards.

Grafana cannot run where the lab is developed, so the end-to-end tests resolve each panel's
variables the way Grafana 12 does and send the query to the real datasource. The rules, as
read in Grafana's source (grafana/README.md cites the files):

InfluxDB (``interpolateQueryExpr``): a single value that JavaScript's ``parseFloat`` reads as
a number is put in raw; any other single value in a regex is escaped (``escapeRegex``:
``\\ ^ $ * + ? . ( ) | [ ] { } /``); a multi-value selection is ``(a|b)`` of escaped values;
"All" with a custom ``allValue`` is that value, raw, and without one every option.
``$timeFilter`` becomes the dashboard's time range in epoch milliseconds.

Prometheus: a variable that is neither multi nor include-All is only quote-escaped; the
others are regex-escaped (``prometheusSpecialRegexEscape``) and joined as ``(a|b)``;
``$__rate_interval`` is max(interval + scrape, 4 x scrape), 20s at the lab's 5 s scrape.
"""

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ALL = "$__all"
RATE_INTERVAL = "20s"
_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)")
_JS_FLOAT = re.compile(r"\s*[+-]?(Infinity|\d+\.?\d*|\.\d+)")
_DURATION = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Selection:
    """What is picked in a variable: one value, several, or All (and its options)."""

    values: tuple[str, ...]
    options: tuple[str, ...]
    all_selected: bool = False


def escape_regex(value: str) -> str:
    return re.sub(r"([\\^$*+?.()|\[\]{}/])", r"\\\1", value)


def _prometheus_regex_escape(value: str) -> str:
    return re.sub(r"([$^*{}\[\]+?.()|])", r"\\\\\1", value.replace("\\", "\\\\\\\\"))


def _influx_value(variable: Mapping[str, Any], selection: Selection) -> str:
    if selection.all_selected and variable.get("allValue"):
        return str(variable["allValue"])
    if not variable.get("multi") and not selection.all_selected:
        single = selection.values[0]
        return single if _JS_FLOAT.match(single) else escape_regex(single)
    values = selection.options if selection.all_selected else selection.values
    return "(" + "|".join(escape_regex(value) for value in values) + ")"


def _prometheus_value(variable: Mapping[str, Any], selection: Selection) -> str:
    if selection.all_selected and variable.get("allValue"):
        return str(variable["allValue"])
    values = selection.options if selection.all_selected else selection.values
    if not variable.get("multi") and not variable.get("includeAll"):
        return values[0].replace("\\", "\\\\").replace("'", "\\'")
    escaped = [_prometheus_regex_escape(value) for value in values]
    return escaped[0] if len(escaped) == 1 else "(" + "|".join(escaped) + ")"


def time_filter(time_from: str, now_s: float | None = None) -> str:
    """``$timeFilter`` for a relative range such as ``now-7d``."""
    now_ms = int((now_s if now_s is not None else time.time()) * 1000)
    match = re.fullmatch(r"now-(\d+)([smhd])", time_from)
    if match is None:
        raise ValueError(f"unsupported time range {time_from!r}")
    span_ms = int(match.group(1)) * _DURATION[match.group(2)] * 1000
    return f"time >= {now_ms - span_ms}ms and time <= {now_ms}ms"


def interpolate(
    text: str,
    datasource: str,
    variables: Sequence[Mapping[str, Any]],
    selections: Mapping[str, Selection],
    time_from: str,
    repeated: str | None = None,
) -> str:
    """``text`` with every dashboard variable and built-in replaced as Grafana would.
    ``repeated`` names the variable a repeated panel was cloned for: Grafana gives that
    panel one value of it, which is a string, escaped."""
    by_name = {variable["name"]: variable for variable in variables}
    text = text.replace("$timeFilter", time_filter(time_from))
    text = text.replace("$__rate_interval", RATE_INTERVAL)

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2) or match.group(3)
        if name not in by_name:
            return match.group(0)
        variable, selection = by_name[name], selections[name]
        if name == repeated:
            return (
                escape_regex(selection.values[0])
                if datasource == "influxdb"
                else _prometheus_regex_escape(selection.values[0])
            )
        if datasource == "influxdb":
            return _influx_value(variable, selection)
        return _prometheus_value(variable, selection)

    return _VARIABLE.sub(replace, text)
