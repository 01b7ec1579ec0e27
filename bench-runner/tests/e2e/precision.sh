#!/usr/bin/env bash
# Iterations that stop when the answer is known, on the real lab (run by `make test-precision`
# on the host; no container gets the docker socket). The device is recreated with
# DEVICE_COMMAND_JITTER_MS, so the HTTPS API's commands vary by seconds while gNMI's Gets do
# not; one adaptive run of precision-plan.yaml; then test_precision.py, in the runner's
# container, checks what results.json, modes.csv and InfluxDB say about each mode's stop.
set -euo pipefail
# shellcheck source=tests/e2e/lab.sh
. "$(dirname "$0")/../../../tests/e2e/lab.sh"  # end_lab
: "${PRECISION_COMPOSE:?the docker compose command of the isolated lab}"
jitter_ms=${PRECISION_JITTER_MS:-2000}  # precision-plan.yaml argues the margins
run_id=precision-$(date -u +%Y%m%dT%H%M%SZ)
log=$(mktemp)
status=0
fail() { echo "test-precision: $*"; status=1; }
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() { rm -f "$log"; end_lab "$PRECISION_COMPOSE" up -d --wait device netem; }  # no jitter
trap cleanup EXIT

DEVICE_COMMAND_JITTER_MS=$jitter_ms $PRECISION_COMPOSE up -d --wait \
  device netem influxdb pushgateway prometheus
run_status=0
$PRECISION_COMPOSE run --rm -T --no-deps bench-runner \
  run --plan /app/tests/e2e/precision-plan.yaml --run-id "$run_id" >"$log" 2>&1 || run_status=$?
cat "$log"
# Falling short of a precision is said, not failed: the run succeeds.
[ "$run_status" -eq 0 ] || fail "the run exited $run_status"
grep -q '(cap)' "$log" || fail "the console summary does not say a mode stopped at its cap"
grep -q '(precise)' "$log" || fail "the console summary does not say a mode was precise"

$PRECISION_COMPOSE run --rm -T --no-deps -e PRECISION_RUN_ID="$run_id" -e CI \
  --entrypoint python3 bench-runner \
  -m pytest /app/tests/e2e/test_precision.py -p no:cacheprovider -v || status=1
exit "$status"
