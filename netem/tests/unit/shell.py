"""Expected commands written as the shell lines an operator would type, so a test reads
against the tc, ip and iptables manuals (the builders return argument lists)."""


def commands(*lines: str) -> list[list[str]]:
    return [line.split() for line in lines]


def command(line: str) -> list[str]:
    return line.split()
