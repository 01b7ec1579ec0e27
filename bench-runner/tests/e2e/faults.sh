#!/usr/bin/env bash
# A fault never produces a number (run by `make test-faults` on the host; no container gets
# the docker socket). On an isolated lab:
#  1. the device restarts while a mode measures at `campus`: the iterations it disturbs fail
#     or are excluded, nothing measured before netem re-applies the profile is published, the
#     device's CPU counter reset is not a negative figure;
#  2. a second run while one measures is refused, naming the first, and a profile change
#     without the first run's lease is refused too.
# test_faults.py checks the results files in the runner's container.
set -euo pipefail
# shellcheck source=tests/e2e/lab.sh
. "$(dirname "$0")/../../../tests/e2e/lab.sh"  # end_lab
: "${FAULTS_COMPOSE:?the docker compose command of the isolated lab}"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
restart_run=faults-restart-$stamp shared_run=faults-shared-$stamp second_run=faults-second-$stamp
logs=$(mktemp -d)
status=0
fail() { echo "test-faults: $*"; status=1; }
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() { rm -rf "$logs"; end_lab "$FAULTS_COMPOSE" up -d --wait device netem; }
trap cleanup EXIT
bench() { $FAULTS_COMPOSE run --rm -T --no-deps bench-runner "$@"; }
in_runner() { $FAULTS_COMPOSE run --rm -T --no-deps "$@"; }  # compose options, then the service
# Waits until a run holds the lab's lock (it measures within seconds then; a container's
# start alone can take longer on a loaded machine) and prints the holder.
await_holder() {
  local held=""
  for _ in $(seq 60); do
    held=$(in_runner --entrypoint python3 bench-runner -c \
      "import httpx; print((httpx.get('http://device:8181/lock').json()['holder'] or {}).get('owner', ''))")
    [ -n "$held" ] && break; sleep 1
  done
  echo "$held"
}

$FAULTS_COMPOSE up -d --wait device netem influxdb pushgateway

# 1. Restart the device while https/keep-alive measures at campus (2 ms: an unimpaired
#    iteration takes well under its 5 round trips x 2 ms).
bench run --profile campus --modes https/keep-alive --iterations 600 --warmup 1 \
  --run-id "$restart_run" >"$logs/restart" 2>&1 & first=$!
[ -n "$(await_holder)" ] || fail "the run to disturb never took the lab's lock"
sleep "${FAULTS_RESTART_AFTER_S:-3}"  # past its RTT gate, into its measured iterations
kill -0 "$first" 2>/dev/null || fail "the run ended before the device restarted"
$FAULTS_COMPOSE restart device
restart_status=0; wait "$first" || restart_status=$?
cat "$logs/restart"
[ "$restart_status" -eq 1 ] || fail "a run with a fault must exit 1, got $restart_status"

# 2. One run at a time.
bench run --profile regional --modes https/keep-alive --iterations 150 --warmup 1 \
  --run-id "$shared_run" >"$logs/shared" 2>&1 & holder=$!
[ -n "$(await_holder)" ] || fail "the first run never took the lab's lock"
sleep 3  # into its measured iterations
second_status=0
bench run --profile local --modes https/batch-post --iterations 20 --run-id "$second_run" \
  >"$logs/second" 2>&1 || second_status=$?
cat "$logs/second"
[ "$second_status" -eq 4 ] || fail "a second run must be refused with exit 4, got $second_status"
tr -s '\n' ' ' <"$logs/second" | grep -q "the lab is busy.*bench-runner run $shared_run" \
  || fail "the refusal does not name the run that holds the lab"
change_status=$(in_runner --entrypoint python3 bench-runner -c \
  "import httpx; print(httpx.put('http://device:8181/profile/local').status_code)")
[ "$change_status" = 423 ] || fail "a profile change without the lease answered $change_status"
shared_status=0; wait "$holder" || shared_status=$?
cat "$logs/shared"
[ "$shared_status" -eq 0 ] || fail "the run that held the lab exited $shared_status"

in_runner -e FAULT_RESTART_RUN_ID="$restart_run" -e FAULT_SHARED_RUN_ID="$shared_run" \
  -e FAULT_SECOND_RUN_ID="$second_run" -e CI --entrypoint python3 bench-runner \
  -m pytest /app/tests/e2e/test_faults.py -p no:cacheprovider -v || status=1
exit "$status"
