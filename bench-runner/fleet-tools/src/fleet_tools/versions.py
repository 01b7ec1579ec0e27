"""What a job ran on: the versions of the distributions each tool drives and, for Ansible, of
the collections whose modules and connection plugins it used (from their MANIFEST.json)."""

import json
import platform
from importlib import metadata
from pathlib import Path

DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "nornir": (
        "nornir",
        "nornir-netmiko",
        "nornir-scrapli",
        "netmiko",
        "scrapli",
        "scrapli-community",
        "ncclient",
        "paramiko",
    ),
    "ansible": (
        "ansible",
        "ansible-core",
        "ansible-runner",
        "ansible-pylibssh",
        "paramiko",
        "ncclient",
    ),
}
"""Per tool, the distributions whose code is on the job's path."""
COLLECTIONS = ("ansible.netcommon", "ansible.utils", "cisco.ios", "arista.eos")
"""The collections the image keeps (bench-runner/Dockerfile) and the playbooks use."""
UNKNOWN = "unknown"


def distribution_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return UNKNOWN


def collections_root() -> Path | None:
    """Where the ``ansible`` distribution installed its collections (ansible_collections/)."""
    try:
        located = metadata.distribution("ansible").locate_file("ansible_collections")
    except metadata.PackageNotFoundError:
        return None
    root = Path(str(located))
    return root if root.is_dir() else None


def collection_version(root: Path | None, name: str) -> str:
    """A collection's version from its MANIFEST.json (``collection_info.version``)."""
    if root is None:
        return UNKNOWN
    namespace, _, collection = name.partition(".")
    try:
        manifest = json.loads((root / namespace / collection / "MANIFEST.json").read_text())
        return str(manifest["collection_info"]["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return UNKNOWN


def versions(tool: str) -> dict[str, str]:
    """Python's version, the tool's distributions' and (Ansible) its collections'."""
    found = {"python": platform.python_version()}
    found.update({name: distribution_version(name) for name in DISTRIBUTIONS.get(tool, ())})
    if tool == "ansible":
        root = collections_root()
        found.update({name: collection_version(root, name) for name in COLLECTIONS})
    return found
