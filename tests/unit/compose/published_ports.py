"""Reads `docker compose config --format json` on stdin and checks what the lab publishes:
`--loopback` every published port on 127.0.0.1 only, `--none` nothing at all (the isolated
test lab). Exit 1 with the offending services."""

import json
import sys


def offending(config: dict[str, object], expect: str) -> list[str]:
    problems = []
    services = config.get("services", {})
    assert isinstance(services, dict)
    for name, service in sorted(services.items()):
        for port in service.get("ports") or []:
            if expect == "--none" or port.get("host_ip") != "127.0.0.1":
                problems.append(f"{name}: publishes {port.get('host_ip', '0.0.0.0')}:"
                                f"{port.get('published')} -> {port.get('target')}")
    return problems


def main(argv: list[str]) -> int:
    if argv not in (["--loopback"], ["--none"]):
        print("usage: docker compose config --format json | published_ports.py "
              "--loopback|--none", file=sys.stderr)
        return 2
    problems = offending(json.load(sys.stdin), argv[0])
    for problem in problems:
        print(f"compose: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
