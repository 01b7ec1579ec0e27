#!/usr/bin/env bash
# The HTML report of a real run, in a real browser (run by `make test-report` on the host). On
# an isolated lab: a short sweep (local, regional) of a few modes with two clients each (gNMI's
# stream among them: its update delays have a table and a chart of their own), its
# report (`bench-runner report-html`) and a comparison of its two runs (`bench-runner
# compare`), made as a user makes them; then test_report_browser.py opens both pages in
# headless chromium. The pages, their charts and the browser's screenshots are copied to
# $REPORT_ARTIFACTS.
set -euo pipefail
# shellcheck source=tests/e2e/lab.sh
. "$(dirname "$0")/../../../tests/e2e/lab.sh"  # end_lab
: "${REPORT_COMPOSE:?the docker compose command of the isolated lab}"
: "${REPORT_ARTIFACTS:?where the reports and screenshots are kept}"
run=report-$(date -u +%Y%m%dT%H%M%SZ)
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() { end_lab "$REPORT_COMPOSE"; }
trap cleanup EXIT
bench() { $REPORT_COMPOSE run --rm -T --no-deps bench-runner "$@"; }

started=$(date +%s)
$REPORT_COMPOSE up -d --wait device netem influxdb pushgateway
# Exit 1 (a mode failed, e.g. refused by the RTT gate on a busy machine) still makes a report:
# a failed mode is part of what the page must show.
run_status=0
bench run --profile local,regional \
  --modes ssh/pty-fresh,ssh/reuse-conn,https/keep-alive,https/batch-post,gnmi/reuse-conn,gnmi/stream \
  --clients asyncssh,paramiko,httpx,requests,grpc-go,pygnmi --iterations 5 --warmup 1 \
  --run-id "$run" || run_status=$?
[ "$run_status" -le 1 ] || { echo "test-report: the run exited $run_status"; exit 1; }
measured=$(date +%s)
bench report-html "$run-regional"
bench compare "$run-local" "$run-regional"
reported=$(date +%s)
status=0
$REPORT_COMPOSE run --rm -T --no-deps -e REPORT_RUN_ID="$run-regional" \
  -e REPORT_COMPARE_DIR="$run-regional/report/compare-$run-local" -e CI --entrypoint python3 \
  bench-runner -m pytest /app/tests/e2e/test_report_browser.py -p no:cacheprovider -v -s \
  || status=1
mkdir -p "$REPORT_ARTIFACTS"
$REPORT_COMPOSE run --rm -T --no-deps -v "$REPORT_ARTIFACTS:/artifacts" --entrypoint sh bench-runner \
  -c "rm -rf /artifacts/latest && mkdir -p /artifacts/latest && cp -r /results/$run-regional/report/. /artifacts/latest/"
echo "test-report: lab up and measured in $((measured - started)) s, reports made in" \
  "$((reported - measured)) s, browser test in $(($(date +%s) - reported)) s (run exit $run_status);" \
  "artifacts in $REPORT_ARTIFACTS/latest"
exit "$status"
