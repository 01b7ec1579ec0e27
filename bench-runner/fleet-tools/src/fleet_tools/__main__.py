"""``python -m fleet_tools``: read one job (JSON) on standard input, run it, write one result
(JSON) on standard output. Everything else (logs, the libraries' noise) goes to standard error:
standard output is moved onto it for the run, so not even a C library or a child process can
write into the result.

Exit status: 0 when the job ran, whatever each device did (the records say ok or not);
2 for a job that cannot run (the reason on standard error); 1 when the program failed.
"""

import json
import logging
import os
import sys
import traceback
from typing import TextIO

from fleet_tools import usage
from fleet_tools.protocol import (
    Credentials,
    HostRecord,
    Job,
    JobError,
    Result,
    credentials_from,
    parse_job,
)
from fleet_tools.versions import versions

EXIT_OK = 0
EXIT_CRASH = 1
EXIT_BAD_JOB = 2

log = logging.getLogger("fleet_tools")


def _result_channel() -> TextIO:
    """The real standard output for the result; file descriptor 1 then points at stderr."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def read_job(text: str) -> Job:
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise JobError(f"the job is not JSON: {exc}") from exc
    return parse_job(document)


def run_job(job: Job, credentials: Credentials) -> tuple[float, list[HostRecord]]:
    """The tool's module is imported here, before its clock starts: imports are not timed."""
    if job.tool == "nornir":
        from fleet_tools import nornir_job

        return nornir_job.run(job, credentials)
    from fleet_tools import ansible_job

    return ansible_job.run(job, credentials)


def main() -> int:
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="fleet_tools: %(name)s: %(message)s"
    )
    result_channel = _result_channel()
    usage.become_subreaper()
    try:
        job = read_job(sys.stdin.read())
        credentials = credentials_from(os.environ)
    except JobError as exc:
        print(f"fleet_tools: bad job: {exc}", file=sys.stderr)
        return EXIT_BAD_JOB
    try:
        wall_s, hosts = run_job(job, credentials)
        usage.reap_children()
        result = Result(
            tool=job.tool,
            versions=versions(job.tool),
            wall_s=round(wall_s, 6),
            hosts=hosts,
            client=usage.client_usage(),
        )
        json.dump(result.to_json(), result_channel)
        result_channel.write("\n")
        result_channel.flush()
    except Exception:
        traceback.print_exc(file=sys.stderr)
        return EXIT_CRASH
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
