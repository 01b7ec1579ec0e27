"""The documentation against the repository it describes.

Run from the repository root: ``python3 tests/unit/docs/check_docs.py``. Standard library only,
so it runs in any Python 3.13 image without the repository's dependencies (or git). It checks
README.md, CONTRIBUTING.md (when present) and docs/**/*.md (docs/modes.md is generated and has
its own freshness test in ``make test-runner``):

- every ``make <target>`` in code exists in the Makefile or mk/*.mk;
- every environment variable written as ``NAME=``, ``$NAME`` or ``${NAME}`` in code exists in
  .env.example, the compose files, the Makefile or mk/, or the runner's settings, or is one of
  the few standard or example names listed below;
- every compose service the text names (a services table, a ``docker compose`` command line,
  ``SERVICES="..."``, "service `x`") exists in compose.yaml;
- every port on 127.0.0.1 is a default of .env.example's ``LAB_*_PORT`` (or a listed example);
- every repository path in backticks exists;
- README.md stays within its length;

and, in every Markdown file of the repository, that every relative link resolves to a file and,
for ``#anchors``, to a heading of it as GitHub names headings. Exit 1 listing every problem.
"""

import re
import shlex
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from examples import marker_problems, shell_examples

README_MAX_LINES = 260

GENERATED = {"docs/modes.md"}
"""Generated pages: their source is checked, not them (``make docs-modes``)."""

STANDARD_VARIABLES = {
    "CI": "set by CI systems; make test reads it",
    "EDITOR": "the user's editor",
    "GOPROXY": "the Go toolchain's module proxy",
    "HOME": "the user's home directory",
    "LANG": "the locale",
    "PATH": "the executable search path",
    "PWD": "the working directory",
    "SSHPASS": "sshpass -e reads the password from it",
    "TERM": "the terminal type",
    "TZ": "the time zone",
    "USER": "the user's name",
}
"""Variables of the environment, not of the lab, that examples may set or read."""

EXAMPLE_VARIABLES = {
    "EDGE_R1_USERNAME": "docs/real-devices.md: its example inventory's credential variables",
    "EDGE_R1_PASSWORD": "docs/real-devices.md: its example inventory's credential variables",
}
"""Names the user chooses, shown in examples."""

EXAMPLE_PORTS = {
    8080: "the device's tunnel target, on 127.0.0.1 inside the device container",
    18080: "the local end of the ssh -L tunnel in docs/device.md's example",
}
"""Ports on 127.0.0.1 that are not the lab's published ones."""

OUTPUT_FILES = {
    "browser-screenshot.png",
    "comparison.md",
    "fleet-job.json",
    "fleet-sweep.json",
    "fleet.yaml",
    "hold.json",
    "index.html",
    "iterations.csv",
    "manifest.json",
    "modes.csv",
    "nightly.lock",
    "report.html",
    "report.json",
    "results.json",
    "stats.json",
}
"""Files a run writes under results/: named by the docs, absent from a checkout."""

PATH_EXTENSIONS = (
    ".c",
    ".cfg",
    ".conf",
    ".csv",
    ".go",
    ".html",
    ".j2",
    ".json",
    ".lock",
    ".md",
    ".mk",
    ".mod",
    ".png",
    ".py",
    ".sh",
    ".sum",
    ".svg",
    ".toml",
    ".txt",
    ".yaml",
    ".yml",
)
"""A backticked name ending in one of these is a file path to check."""

SKIPPED_DIRS = {
    ".git",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".venv",
    "__pycache__",
    "node_modules",
    "results",
}
"""Never searched for files or Markdown: caches, and results/ (the runs, git-ignored)."""

COMPOSE_GLOBAL_OPTIONS_WITH_VALUE = {
    "-p",
    "--project-name",
    "-f",
    "--file",
    "--profile",
    "--env-file",
    "--project-directory",
    "--ansi",
    "--parallel",
}
COMPOSE_OPTIONS_WITH_VALUE = {
    "-e",
    "--env",
    "-v",
    "--volume",
    "-w",
    "--workdir",
    "--entrypoint",
    "-u",
    "--user",
    "--name",
    "-l",
    "--label",
    "--cap-add",
    "--cap-drop",
    "-p",
    "--publish",
    "--scale",
    "--tail",
    "-t",
    "--timeout",
    "--wait-timeout",
    "--pull",
    "--index",
    "--format",
    "--since",
    "--until",
    "--status",
    "--filter",
}
COMPOSE_SERVICE_OPTIONS = {"--exit-code-from", "--attach", "--no-attach"}
"""Options whose value is a service name."""
COMPOSE_SUBCOMMANDS_TAKING_SERVICES = {
    "build",
    "create",
    "down",
    "exec",
    "kill",
    "logs",
    "pause",
    "ps",
    "pull",
    "push",
    "restart",
    "rm",
    "run",
    "start",
    "stop",
    "top",
    "unpause",
    "up",
}
COMPOSE_SINGLE_SERVICE = {"exec", "run"}
"""Subcommands whose first argument is the service and the rest its command."""

MAKE_OPTIONS_WITH_VALUE = {
    "-C",
    "--directory",
    "-f",
    "--file",
    "--makefile",
    "-j",
    "--jobs",
    "-I",
    "--include-dir",
    "-o",
    "-W",
}

TARGET_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
VARIABLE_NAME = r"[A-Z][A-Z0-9_]*[A-Z0-9]"
FENCE = re.compile(r"^\s*(```+|~~~+)")
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


@dataclass(frozen=True)
class Code:
    """A piece of code in a Markdown file: an inline span or a fenced block's line."""

    text: str
    line: int
    block: bool


@dataclass(frozen=True)
class Document:
    path: Path
    name: str
    text: str
    prose: str
    """The text with fenced blocks blanked (line numbers kept)."""
    code: list[Code]


def read_document(root: Path, path: Path) -> Document:
    text = path.read_text(encoding="utf-8")
    prose_lines: list[str] = []
    code: list[Code] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            prose_lines.append("")
            continue
        if fence is not None:
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
            else:
                code.append(Code(line, number, block=True))
            prose_lines.append("")
            continue
        prose_lines.append(line)
    prose = "\n".join(prose_lines)
    for match in CODE_SPAN.finditer(prose):
        if "\n\n" in match.group(2):
            continue
        at = prose.count("\n", 0, match.start()) + 1
        code.append(Code(match.group(2).replace("\n", " ").strip(), at, block=False))
    return Document(path, path.relative_to(root).as_posix(), text, prose, code)


def repository_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.iterdir()):
        if path.name in SKIPPED_DIRS:
            continue
        if path.is_dir():
            yield from repository_files(path)
        else:
            yield path


def checked_documents(root: Path) -> list[Path]:
    paths = [root / "README.md"]
    if (root / "CONTRIBUTING.md").is_file():
        paths.append(root / "CONTRIBUTING.md")
    paths += sorted(
        path
        for path in (root / "docs").rglob("*.md")
        if path.relative_to(root).as_posix() not in GENERATED
    )
    return paths


def makefiles(root: Path) -> list[Path]:
    return [root / "Makefile", *sorted((root / "mk").glob("*.mk"))]


def make_targets(root: Path) -> set[str]:
    targets: set[str] = set()
    for path in makefiles(root):
        continued = False
        for line in path.read_text(encoding="utf-8").splitlines():
            starts_a_rule = not continued and not line.startswith("\t")
            continued = line.endswith("\\")
            if not starts_a_rule or line.lstrip().startswith("#"):
                continue
            rule = re.match(
                r"^([A-Za-z0-9_.%/$()-]+(?:[ \t]+[A-Za-z0-9_.%/$()-]+)*)[ \t]*:(?!=)", line
            )
            if rule and not re.search(r"[?+:!]?=\s*$", rule.group(1)):
                targets.update(rule.group(1).split())
    return targets


def lab_variables(root: Path) -> set[str]:
    names: set[str] = set()
    sources = [
        root / ".env.example",
        *sorted(root.glob("compose*.yaml")),
        *makefiles(root),
        *sorted((root / "mk").glob("*.sh")),
    ]
    for path in sources:
        names.update(re.findall(rf"\b{VARIABLE_NAME}\b", path.read_text(encoding="utf-8")))
    settings = root / "bench-runner/src/bench_runner/settings.py"
    fields = re.findall(r"^    ([a-z][a-z0-9_]*)\s*:", settings.read_text(encoding="utf-8"), re.M)
    names.update(field.upper() for field in fields)
    return names


def compose_services(root: Path) -> set[str]:
    text = (root / "compose.yaml").read_text(encoding="utf-8")
    block = text.split("\nservices:\n", 1)[1]
    block = re.split(r"\n(?=\S)", block, maxsplit=1)[0]
    return set(re.findall(r"^  ([A-Za-z0-9][A-Za-z0-9_.-]*):", block, re.M))


def lab_ports(root: Path) -> set[int]:
    text = (root / ".env.example").read_text(encoding="utf-8")
    return {int(port) for port in re.findall(r"^LAB_\w+_PORT=(\d+)\s*$", text, re.M)}


def joined_lines(code: list[Code]) -> Iterator[Code]:
    """Code with a block's backslash-continued lines joined, so a command reads whole."""
    pending: Code | None = None
    for piece in code:
        if not piece.block:
            yield piece
            continue
        if pending is not None:
            piece = Code(pending.text + " " + piece.text.strip(), pending.line, True)
            pending = None
        if piece.text.rstrip().endswith("\\"):
            pending = Code(piece.text.rstrip()[:-1], piece.line, True)
            continue
        yield piece
    if pending is not None:
        yield pending


def without_comment(line: str) -> str:
    """A shell line without its comment: from the first # that starts a word, out of quotes."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def words(command: str) -> list[str]:
    command = command.split(" #", 1)[0]
    try:
        return shlex.split(command, comments=False)
    except ValueError:
        return command.split()


def commands_of(text: str, program: str) -> Iterator[list[str]]:
    """The words after each ``program`` in a line of code, up to a shell operator."""
    for match in re.finditer(rf"(?:^|(?<=[\s;&|(`/=]))(?:{program})(?=\s|$)", text):
        rest = text[match.end() :]
        rest = re.split(r"\s(?:&&|\|\||;|\||>>?|<)\s?|[;)`]|\s&\s*$", rest, maxsplit=1)[0]
        yield words(rest)


def make_problems(document: Document, targets: set[str]) -> Iterator[str]:
    for piece in joined_lines(document.code):
        text = without_comment(piece.text) if piece.block else piece.text
        for arguments in commands_of(text, "make"):
            skip_next = False
            for argument in arguments:
                if skip_next:
                    skip_next = False
                    continue
                if argument in MAKE_OPTIONS_WITH_VALUE:
                    skip_next = True
                    continue
                if argument.startswith("-") or "=" in argument:
                    continue
                if not TARGET_NAME.fullmatch(argument):
                    continue
                if argument not in targets:
                    yield (
                        f"{document.name}:{piece.line}: make target {argument!r} is not in "
                        "the Makefile or mk/*.mk"
                    )


def variable_problems(document: Document, known: set[str]) -> Iterator[str]:
    allowed = known | set(STANDARD_VARIABLES) | set(EXAMPLE_VARIABLES)
    pattern = re.compile(rf"(?<![A-Za-z0-9_.-])({VARIABLE_NAME})=(?!=)|\$\{{?({VARIABLE_NAME})")
    for piece in document.code:
        for match in pattern.finditer(piece.text):
            name = match.group(1) or match.group(2)
            if name not in allowed:
                yield (
                    f"{document.name}:{piece.line}: environment variable {name} is not in "
                    ".env.example, the compose files, the Makefile or mk/, or the runner's "
                    "settings"
                )


def compose_arguments(arguments: list[str]) -> Iterator[str]:
    """The service names in the arguments of ``docker compose``."""
    index = 0
    while index < len(arguments) and arguments[index].startswith("-"):
        index += 2 if arguments[index] in COMPOSE_GLOBAL_OPTIONS_WITH_VALUE else 1
    if index >= len(arguments) or arguments[index] not in COMPOSE_SUBCOMMANDS_TAKING_SERVICES:
        return
    subcommand = arguments[index]
    index += 1
    while index < len(arguments):
        argument = arguments[index]
        if argument in COMPOSE_SERVICE_OPTIONS and index + 1 < len(arguments):
            yield arguments[index + 1]
            index += 2
            continue
        if argument.startswith("-"):
            takes_value = argument in COMPOSE_OPTIONS_WITH_VALUE and "=" not in argument
            index += 2 if takes_value else 1
            continue
        if not argument.startswith("$"):
            yield argument
        if subcommand in COMPOSE_SINGLE_SERVICE:
            return
        index += 1


def named_services(document: Document) -> Iterator[tuple[str, int]]:
    for piece in joined_lines(document.code):
        text = without_comment(piece.text) if piece.block else piece.text
        for arguments in commands_of(text, r"docker\s+compose"):
            for service in compose_arguments(arguments):
                yield service, piece.line
        for match in re.finditer(r"\bSERVICES=\"([^\"]*)\"", piece.text):
            for service in match.group(1).split():
                yield service, piece.line
    prose = document.prose
    for match in re.finditer(r"\bservices? `([^`\s]+)`|`([^`\s]+)` (?:service|container)\b", prose):
        yield match.group(1) or match.group(2), prose.count("\n", 0, match.start()) + 1
    for line, first_cells in service_table_cells(prose):
        for service in re.findall(r"`([^`]+)`", first_cells):
            yield service, line


def service_table_cells(prose: str) -> Iterator[tuple[int, str]]:
    """The first cell of every row of a table whose first column is headed "service"."""
    in_table = False
    for number, line in enumerate(prose.splitlines(), start=1):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|"):
            in_table = False
            continue
        if not in_table and cells and cells[0].lower() == "service":
            in_table = True
            continue
        if in_table and not re.fullmatch(r"[-: ]+", cells[0] or "-"):
            yield number, cells[0]


def service_problems(document: Document, services: set[str]) -> Iterator[str]:
    for service, line in named_services(document):
        if service not in services:
            yield f"{document.name}:{line}: compose service {service!r} is not in compose.yaml"


def port_problems(document: Document, ports: set[int]) -> Iterator[str]:
    allowed = ports | set(EXAMPLE_PORTS)
    found: list[tuple[int, int]] = []
    for match in re.finditer(r"127\.0\.0\.1:(\d+)", document.text):
        found.append((int(match.group(1)), document.text.count("\n", 0, match.start()) + 1))
    for match in re.finditer(r"-p (\d+)\b[^\n]*?@127\.0\.0\.1", document.text):
        found.append((int(match.group(1)), document.text.count("\n", 0, match.start()) + 1))
    for line, cells in host_port_cells(document.prose):
        found += [(int(port), line) for port in re.findall(r"`(\d+)`", cells)]
    for port, line in found:
        if port not in allowed:
            yield (
                f"{document.name}:{line}: port {port} on 127.0.0.1 is not a LAB_*_PORT "
                "default of .env.example"
            )


def host_port_cells(prose: str) -> Iterator[tuple[int, str]]:
    """The cells under a table column headed with "127.0.0.1"."""
    column: int | None = None
    for number, line in enumerate(prose.splitlines(), start=1):
        if not line.lstrip().startswith("|"):
            column = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if column is None:
            headed = [index for index, cell in enumerate(cells) if "127.0.0.1" in cell]
            column = headed[0] if headed else None
            continue
        if column < len(cells) and not re.fullmatch(r"[-: ]+", cells[column] or "-"):
            yield number, cells[column]


def path_problems(document: Document, root: Path, files: list[str]) -> Iterator[str]:
    top = {path.name for path in root.iterdir() if path.is_dir()} - {".git"}
    for piece in document.code:
        if piece.block:
            continue
        candidate = piece.text.rstrip(".,:;")
        if not looks_like_path(candidate, top):
            continue
        if candidate.startswith("results/") or candidate.rsplit("/", 1)[-1] in OUTPUT_FILES:
            continue
        if not path_exists(candidate, root, document.path.parent, files):
            yield f"{document.name}:{piece.line}: path {candidate!r} does not exist"


def looks_like_path(text: str, top: set[str]) -> bool:
    if not text or re.search(r"[\s<>*{}$~|…\"'=@:\[\]]|\.\.\.", text):
        return False
    if text.startswith(("/", "-", "..")):
        return False
    first = text.split("/", 1)[0]
    return ("/" in text and first in top) or text.endswith(PATH_EXTENSIONS)


def path_exists(text: str, root: Path, here: Path, files: list[str]) -> bool:
    path = text.rstrip("/")
    if (root / path).exists() or (here / path).exists():
        return True
    return any(name == path or name.endswith("/" + path) for name in files)


def heading_anchors(text: str) -> set[str]:
    anchors: set[str] = set(HTML_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    fence: str | None = None
    for line in text.splitlines():
        opened = FENCE.match(line)
        if opened:
            mark = opened.group(1)
            fence = None if fence and mark.startswith(fence[0]) else (fence or mark)
            continue
        if fence:
            continue
        heading = HEADING.match(line)
        if heading:
            slug = github_slug(heading.group(2))
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text, lower case, punctuation dropped, spaces
    turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    # HTML tags are dropped, but not what a code span shows literally (`<run-id>`).
    parts = re.split(r"(`+[^`]*`+)", text)
    text = "".join(
        part if part.startswith("`") else re.sub(r"<[^>]+>", "", part) for part in parts
    ).lower()
    text = "".join(char for char in text if char.isalnum() or char in " -_")
    return text.replace(" ", "-")


def link_problems(document: Document, root: Path) -> Iterator[str]:
    for match in LINK.finditer(document.prose):
        target = match.group(1)
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue
        line = document.prose.count("\n", 0, match.start()) + 1
        if is_inside_code(document.prose, match.start()):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (document.path.parent / file_part).resolve() if file_part else document.path
        if not linked.exists():
            yield f"{document.name}:{line}: link {target!r}: no such file"
            continue
        if not linked.is_relative_to(root.resolve()):
            yield f"{document.name}:{line}: link {target!r} leaves the repository"
            continue
        if (
            anchor
            and linked.suffix == ".md"
            and anchor not in heading_anchors(linked.read_text(encoding="utf-8"))
        ):
            yield f"{document.name}:{line}: link {target!r}: no heading #{anchor} there"


def is_inside_code(prose: str, offset: int) -> bool:
    line_start = prose.rfind("\n", 0, offset) + 1
    return prose.count("`", line_start, offset) % 2 == 1


def readme_problems(root: Path) -> Iterator[str]:
    lines = len((root / "README.md").read_text(encoding="utf-8").splitlines())
    if lines > README_MAX_LINES:
        yield f"README.md: {lines} lines, more than {README_MAX_LINES}"


def problems(root: Path) -> list[str]:
    files = [path.relative_to(root).as_posix() for path in repository_files(root)]
    targets = make_targets(root)
    variables = lab_variables(root)
    services = compose_services(root)
    ports = lab_ports(root)
    found: list[str] = list(readme_problems(root))
    for path in checked_documents(root):
        found += marker_problems(shell_examples(root, path.relative_to(root).as_posix()))
        document = read_document(root, path)
        found += make_problems(document, targets)
        found += variable_problems(document, variables)
        found += service_problems(document, services)
        found += port_problems(document, ports)
        found += path_problems(document, root, files)
    for name in markdown_files(files):
        found += link_problems(read_document(root, root / name), root)
    return found


def markdown_files(files: Iterable[str]) -> list[str]:
    return [name for name in files if name.endswith(".md")]


def main() -> int:
    root = Path.cwd()
    if not (root / "compose.yaml").is_file() or not (root / "README.md").is_file():
        print(
            "check_docs: run from the repository root (no compose.yaml or README.md here)",
            file=sys.stderr,
        )
        return 2
    found = problems(root)
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        print(f"check_docs: {len(found)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_docs: {len(checked_documents(root))} documents and every Markdown link: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
