"""The shell examples of the documentation, and whether each is run (standard library only).

Every fenced block in ``sh``, ``bash`` or ``shell`` carries a marker on the line before its
opening fence, an HTML comment that GitHub does not show:

- ``<!-- example: runs -->``: ``make test-e2e`` runs it as written against the test lab
  (tests/e2e/doc_examples.py): on the host when it calls ``make`` or ``docker``, else in a
  container where 127.0.0.1 reaches the lab's services on the ports ``.env.example`` names;
- ``<!-- example: not run (why) -->``: it is not run, for the reason given (it measures for
  minutes, stops the lab, needs a server of yours, ...).

check_docs.py fails on a block without a marker, and on ``not run`` without a reason.
"""

import re
from dataclasses import dataclass
from pathlib import Path

SHELL_LANGUAGES = {"sh", "bash", "shell"}
OPENING_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w-]*)")
MARKER = re.compile(r"^\s*<!--\s*example:\s*(runs|not run(?:\s*\((.+)\))?)\s*-->\s*$")
HOST_COMMAND = re.compile(r"(^|[\s;&|(])(make|docker)\s")


@dataclass(frozen=True)
class Example:
    document: str
    line: int
    """The opening fence's line."""
    code: str
    marker: str | None
    """``runs``, ``not run (why)``, or None when the block carries none."""
    reason: str | None

    @property
    def runs(self) -> bool:
        return self.marker == "runs"

    def on_host(self) -> bool:
        """It drives make or docker: it runs where the repository and Docker are."""
        return any(
            HOST_COMMAND.search(line)
            for line in self.code.splitlines()
            if not line.lstrip().startswith("#")
        )

    def where(self) -> str:
        return f"{self.document}:{self.line}"


def shell_examples(root: Path, name: str) -> list[Example]:
    """The shell blocks of the Markdown file ``name`` (relative to ``root``)."""
    lines = (root / name).read_text(encoding="utf-8").splitlines()
    found: list[Example] = []
    index = 0
    while index < len(lines):
        opened = OPENING_FENCE.match(lines[index])
        if opened is None:
            index += 1
            continue
        fence, language = opened.groups()
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        if language in SHELL_LANGUAGES:
            marker = MARKER.match(lines[index - 1]) if index else None
            found.append(
                Example(
                    document=name,
                    line=index + 1,
                    code="\n".join(lines[index + 1 : end]) + "\n",
                    marker=marker.group(1) if marker else None,
                    reason=marker.group(2) if marker else None,
                )
            )
        index = end + 1
    return found


def marker_problems(examples: list[Example]) -> list[str]:
    problems = []
    for example in examples:
        if example.marker is None:
            problems.append(
                f"{example.where()}: a shell example without <!-- example: runs --> or "
                "<!-- example: not run (why) --> on the line before it"
            )
        elif not example.runs and not example.reason:
            problems.append(f"{example.where()}: `not run` needs its reason: not run (why)")
    return problems
