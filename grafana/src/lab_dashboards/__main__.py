"""``python -m lab_dashboards write DIR`` | ``check DIR [PROVISIONING_DIR]``."""

import sys
from pathlib import Path

from lab_dashboards.generate import stale, write
from lab_dashboards.lint import lint_directory

USAGE = "usage: python -m lab_dashboards write DIR | check DIR PROVISIONING_DIR"


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "write":
        for path in write(Path(argv[1])):
            print(f"wrote {path}")
        return 0
    if len(argv) == 3 and argv[0] == "check":
        problems = stale(Path(argv[1])) + lint_directory(Path(argv[1]), Path(argv[2]))
        for problem in problems:
            print(f"dashboards: {problem}", file=sys.stderr)
        return 1 if problems else 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
