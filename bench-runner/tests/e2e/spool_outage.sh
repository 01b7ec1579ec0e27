#!/usr/bin/env bash
# A sink that is down never loses a point (run by `make test-sink-spool` on the host; no
# container gets the docker socket). On an isolated lab: InfluxDB is stopped, a run of the
# fastest modes at `local` (hundreds of points, iterations a millisecond apart) must spool
# every point it reports; InfluxDB is started, `bench-runner replay` delivers the spool, and
# test_spool_delivery.py checks in InfluxDB that the stored count is the reported one.
set -euo pipefail
# shellcheck source=tests/e2e/lab.sh
. "$(dirname "$0")/../../../tests/e2e/lab.sh"  # end_lab
: "${SPOOL_COMPOSE:?the docker compose command of the isolated lab}"
iterations=${SPOOL_ITERATIONS:-300}
run_id=spool-$(date -u +%Y%m%dT%H%M%SZ)
log=$(mktemp)
status=0
fail() { echo "test-sink-spool: $*"; status=1; }
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() { rm -f "$log"; end_lab "$SPOOL_COMPOSE" up -d --wait influxdb; }
trap cleanup EXIT

$SPOOL_COMPOSE up -d --wait device netem influxdb pushgateway
$SPOOL_COMPOSE stop influxdb
# --no-deps: compose would otherwise start InfluxDB again, it is a dependency of the runner.
$SPOOL_COMPOSE run --rm -T --no-deps bench-runner run --profile local --modes https/batch-post,https/keep-alive \
  --iterations "$iterations" --warmup 1 --run-id "$run_id" >"$log" 2>&1 \
  || echo "test-sink-spool: run exit status $? (modes are judged by the assertions below)"
cat "$log"
# rich may wrap the warning; join lines before matching.
reported=$(tr -s '\n' ' ' <"$log" | grep -o '[0-9]* points not written to' | grep -o '^[0-9]*' || true)
[ -n "$reported" ] || fail "the run did not report spooled InfluxDB points"
$SPOOL_COMPOSE run --rm -T --no-deps --entrypoint ls bench-runner /results/spool \
  | grep -x "$run_id.lp" >/dev/null || fail "$run_id.lp not in the spool"
$SPOOL_COMPOSE up -d --wait influxdb
$SPOOL_COMPOSE run --rm -T bench-runner replay || fail "replay did not deliver everything"
$SPOOL_COMPOSE run --rm -T --no-deps -e CI -e SPOOL_TEST_RUN_ID="$run_id" -e SPOOL_TEST_POINTS="${reported:-0}" \
  --entrypoint python3 bench-runner -m pytest /app/tests/e2e/test_spool_delivery.py -p no:cacheprovider -v || status=1
exit "$status"
