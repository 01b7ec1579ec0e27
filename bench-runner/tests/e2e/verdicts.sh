#!/usr/bin/env bash
# Regression verdicts on the real lab (run by `make test-verdicts` on the host; no container
# gets the docker socket). On an isolated lab: the nights of a short plan (NIGHTS runs, the
# first NIGHTS - 1 of them history enough for the next), then the device recreated with
# DEVICE_COMMAND_DELAY_MS and one more night. test_verdicts.py, in the runner's container,
# then checks that night's verdicts in results.json, InfluxDB and Prometheus; this script
# checks its summary line and `bench-runner verdicts`' exit codes.
set -euo pipefail
# shellcheck source=tests/e2e/lab.sh
. "$(dirname "$0")/../../../tests/e2e/lab.sh"  # end_lab
: "${VERDICTS_COMPOSE:?the docker compose command of the isolated lab}"
nights=${VERDICTS_NIGHTS:-6}
delay_ms=${VERDICTS_DELAY_MS:-100}  # verdicts-plan.yaml argues the margins
plan=/app/tests/e2e/verdicts-plan.yaml
stamp=$(date -u +%Y%m%dT%H%M%SZ)
logs=$(mktemp -d)
status=0
fail() { echo "test-verdicts: $*"; status=1; }
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() { rm -rf "$logs"; end_lab "$VERDICTS_COMPOSE" up -d --wait device netem; }  # no delay
trap cleanup EXIT
bench() { $VERDICTS_COMPOSE run --rm -T --no-deps bench-runner "$@"; }

$VERDICTS_COMPOSE up -d --wait device netem influxdb pushgateway prometheus

for night in $(seq "$nights"); do
  bench run --plan "$plan" --run-id "verdicts-$stamp-night$night" >"$logs/night$night" 2>&1 \
    || { cat "$logs/night$night"; fail "night $night failed"; }
  grep -h '^verdicts:' "$logs/night$night" || fail "night $night printed no verdicts line"
done
quiet=0; bench verdicts --run "verdicts-$stamp-night$nights" >/dev/null || quiet=$?
[ "$quiet" -eq 0 ] || fail "bench-runner verdicts on a quiet night exited $quiet, not 0"

# The device made slower on purpose: every CLI and API command waits delay_ms first.
DEVICE_COMMAND_DELAY_MS=$delay_ms $VERDICTS_COMPOSE up -d --wait device netem
slow_run=verdicts-$stamp-slow
slow_status=0
bench run --plan "$plan" --run-id "$slow_run" >"$logs/slow" 2>&1 || slow_status=$?
cat "$logs/slow"
[ "$slow_status" -eq 0 ] || fail "the slow night's run exited $slow_status"
line=$(grep -m1 '^verdicts:' "$logs/slow" || true)
echo "summary: $line"
grep -q '^verdicts: 2 regressed (' <<<"$line" || fail "the summary does not say 2 regressed"
for delayed in https/keep-alive ssh/reuse-conn; do
  grep -q "$delayed" <<<"$line" || fail "the summary does not name $delayed"
done
if grep -q 'netconf/reuse-session' <<<"$line"; then fail "the summary names the NETCONF mode"; fi
slow_verdicts=0; bench verdicts --run "$slow_run" || slow_verdicts=$?
[ "$slow_verdicts" -eq 1 ] || fail "bench-runner verdicts on the slow night exited $slow_verdicts, not 1"
usage=0; bench verdicts --run no-such-run >/dev/null 2>&1 || usage=$?
[ "$usage" -eq 2 ] || fail "bench-runner verdicts on an unknown run exited $usage, not 2"
points=$(tr -s '\n' ' ' <"$logs/slow" | grep -o '[0-9]* points to [^ ]*/write' | cut -d' ' -f1)

$VERDICTS_COMPOSE run --rm -T --no-deps -e VERDICTS_SLOW_RUN_ID="$slow_run" \
  -e VERDICTS_POINTS="$points" -e CI --entrypoint python3 bench-runner \
  -m pytest /app/tests/e2e/test_verdicts.py -p no:cacheprovider -v || status=1
exit "$status"
