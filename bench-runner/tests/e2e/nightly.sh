#!/usr/bin/env bash
# Scheduled runs, end to end (run by `make test-nightly` on the host; no container gets the
# docker socket). On an isolated lab the scheduler runs the small test plan every minute:
#  1. while a scheduled run measures, `bench-runner nightly` started by hand (what
#     `make nightly` runs) is refused at once with exit 5, naming the scheduled run;
#  2. two scheduled runs complete; test_nightly_e2e.py then checks, in the runner's
#     container, their results and manifests, that they never overlapped (their times and
#     supercronic's own metrics), the last-success gauge in Prometheus, their points in
#     InfluxDB and the retention policy INFLUX_RETENTION set.
set -euo pipefail
# shellcheck source=tests/e2e/lab.sh
. "$(dirname "$0")/../../../tests/e2e/lab.sh"  # end_lab
: "${NIGHTLY_COMPOSE:?the docker compose command of the isolated lab}"
compose="$NIGHTLY_COMPOSE --profile nightly"
export NIGHTLY_SCHEDULE="* * * * *" NIGHTLY_PLAN=/plans/nightly-test.yaml INFLUX_RETENTION=30d
status=0
fail() { echo "test-nightly: FAILED: $*"; status=1; }
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  if [ "$status" -ne 0 ]; then $compose logs --tail=60 scheduler influxdb-retention || true; fi
  end_lab "$compose" rm -sf scheduler
}
trap cleanup EXIT
in_scheduler() { $compose exec -T scheduler "$@"; }
finished_runs() { in_scheduler sh -c 'ls -d /results/nightly-*/results.json 2>/dev/null | wc -l'; }

started=$(date +%s)
$compose up -d --wait device netem influxdb pushgateway prometheus scheduler
echo "test-nightly: lab and scheduler up after $(($(date +%s) - started)) s"

# 1. Wait for a scheduled run to hold the nightly lock (within ~70 s), then start one by hand.
holder=""
for _ in $(seq 90); do
  holder=$(in_scheduler cat /results/nightly.lock 2>/dev/null || true)
  [ -n "$holder" ] && break; sleep 1
done
[ -n "$holder" ] || fail "no scheduled run started within 90 s"
echo "test-nightly: scheduled run holds the lock: $holder"
hand_status=0
hand=$($compose run --rm -T --no-deps --entrypoint bench-runner scheduler nightly 2>&1) \
  || hand_status=$?
echo "$hand"
[ "$hand_status" -eq 5 ] || fail "a nightly run started by hand must be refused with exit 5, got $hand_status"
tr -s '\n' ' ' <<<"$hand" | grep -q "another nightly run holds /results/nightly.lock (run nightly-" \
  || fail "the refusal does not name the scheduled run"

# 2. Two scheduled runs complete (the second at the next minute).
done_runs=0
for _ in $(seq 150); do
  done_runs=$(finished_runs)
  [ "$done_runs" -ge 2 ] && break; sleep 1
done
[ "$done_runs" -ge 2 ] || fail "$done_runs scheduled runs completed, 2 expected"
# The second run's status push, then a Prometheus scrape of it and of supercronic.
sleep 12
$compose logs --no-log-prefix scheduler | grep -E "nightly:|level=(info|warning)" | tail -20

$compose run --rm -T --no-deps -e CI -e NIGHTLY_INFLUX_RETENTION="$INFLUX_RETENTION" \
  --entrypoint python3 bench-runner -m pytest /app/tests/e2e/test_nightly_e2e.py \
  -p no:cacheprovider -v || status=1
echo "test-nightly: $(($(date +%s) - started)) s"
exit "$status"
