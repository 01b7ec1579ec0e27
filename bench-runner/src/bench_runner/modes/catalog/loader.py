"""Reads the catalog's YAML files into mode definitions and rows, strictly: an unknown key, a
missing one, a malformed count or a row of an unknown mode is a CatalogError naming the file
and the entry. The files are data: nothing here imports a client library."""

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

import yaml

from bench_runner.modes.base import PerIteration, Transport
from bench_runner.modes.row import ModeDefinition, Parameters, Plugin, Row, plugin

_DEFINITION_KEYS = {
    "name": True,
    "summary": True,
    "lower_bound": True,
    "argument": True,
    "connections": True,
    "commands_per_request": True,
    "parameters": False,
}
_ROW_KEYS = {
    "mode": True,
    "client": True,
    "floor": False,
    "description": True,
    "expected": True,
    "evidence": True,
    "session": True,
    "session_options": False,
    "version": False,
    "version_options": False,
    "hosts_at_once": False,
    "wire_hosts": False,
}


class CatalogError(ValueError):
    """A catalog file says something the catalog cannot mean."""


@dataclass(frozen=True)
class Clients:
    floor: tuple[str, ...]
    libraries: tuple[str, ...]
    """In the order they run within a mode."""
    not_applicable: dict[str, str]
    """Why a client has no row for a mode of a transport it speaks."""
    unsupported_transports: dict[str, frozenset[Transport]]
    """Transports a client has no mode of at all, yet is asked about."""


def _document(name: str) -> dict[str, Any]:
    text = files("bench_runner.modes.catalog").joinpath(name).read_text(encoding="utf-8")
    document = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if not isinstance(document, dict):
        raise CatalogError(f"{name}: not a mapping")
    return document


def _entries(source: str, document: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    entries = document.get(key)
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise CatalogError(f"{source}: {key!r} must be a list of mappings")
    return entries


def _checked(where: str, entry: Mapping[str, Any], keys: Mapping[str, bool]) -> None:
    unknown = sorted(set(entry) - set(keys))
    missing = sorted(key for key, required in keys.items() if required and key not in entry)
    if unknown or missing:
        raise CatalogError(f"{where}: unknown keys {unknown}, missing keys {missing}")


def _count(where: str, value: object) -> PerIteration:
    try:
        return PerIteration.parse(str(value))
    except ValueError as exc:
        raise CatalogError(f"{where}: {exc}") from exc


def _plugin(entry: Mapping[str, Any], key: str) -> Plugin | None:
    if key not in entry:
        return None
    return plugin(str(entry[key]), **dict(entry.get(f"{key}_options") or {}))


def _definition(source: str, entry: Mapping[str, Any]) -> ModeDefinition:
    where = f"{source}: mode {entry.get('name')!r}"
    _checked(where, entry, _DEFINITION_KEYS)
    per_request = entry["commands_per_request"]
    parameters = entry.get("parameters")
    try:
        definition = ModeDefinition(
            name=str(entry["name"]),
            summary=str(entry["summary"]),
            lower_bound=_count(where, entry["lower_bound"]),
            argument=str(entry["argument"]),
            connections=_count(where, entry["connections"]),
            commands_per_request=None if per_request is None else _count(where, per_request),
            parameters=None if parameters is None else Parameters(parameters),
        )
        definition.transport  # noqa: B018 - the name must start with a transport
    except ValueError as exc:
        raise CatalogError(f"{where}: {exc}") from exc
    return definition


def _row(source: str, entry: Mapping[str, Any], modes: Mapping[str, ModeDefinition]) -> Row:
    where = f"{source}: row {entry.get('mode')!r} {entry.get('client')!r}"
    _checked(where, entry, _ROW_KEYS)
    if entry["mode"] not in modes:
        raise CatalogError(f"{where}: no such mode in {source}")
    session = _plugin(entry, "session")
    assert session is not None  # a required key
    return Row(
        mode=modes[entry["mode"]],
        client=str(entry["client"]),
        description=str(entry["description"]),
        expected=_count(where, entry["expected"]),
        evidence=str(entry["evidence"]),
        session=session,
        floor=bool(entry.get("floor", False)),
        version=_plugin(entry, "version"),
        hosts_at_once=bool(entry.get("hosts_at_once", False)),
        wire_hosts=_plugin(entry, "wire_hosts"),
    )


def transport_catalog(name: str) -> tuple[tuple[ModeDefinition, ...], tuple[Row, ...]]:
    """The modes and rows of ``<name>.yaml``, each row of a mode defined in that file."""
    source = f"{name}.yaml"
    document = _document(source)
    definitions = tuple(_definition(source, e) for e in _entries(source, document, "modes"))
    by_name = {definition.name: definition for definition in definitions}
    rows = tuple(_row(source, e, by_name) for e in _entries(source, document, "rows"))
    return definitions, rows


def clients() -> Clients:
    document = _document("clients.yaml")
    try:
        return Clients(
            floor=tuple(document["floor"]),
            libraries=tuple(document["libraries"]),
            not_applicable={str(k): str(v) for k, v in document["not_applicable"].items()},
            unsupported_transports={
                str(client): frozenset(Transport(t) for t in transports)
                for client, transports in document["unsupported_transports"].items()
            },
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CatalogError(f"clients.yaml: {exc!r}") from exc
