#!/bin/sh
# The scheduler container's entrypoint: writes the crontab from .env's NIGHTLY_SCHEDULE,
# CRON_TZ and NIGHTLY_PLAN (bench-runner checks them and names a wrong one), has supercronic
# parse it, then runs supercronic as PID 1 so it also reaps the job's children. Its metrics
# listen on the lab network only (compose publishes nothing); overlapping runs stay off.
set -eu
crontab=/tmp/nightly.crontab
bench-runner nightly-crontab >"$crontab"
if ! supercronic -test "$crontab" >/tmp/crontab-test.log 2>&1; then
  echo "scheduler: supercronic refuses the schedule NIGHTLY_SCHEDULE=\"${NIGHTLY_SCHEDULE:-}\":" >&2
  cat /tmp/crontab-test.log >&2
  exit 2
fi
echo "scheduler: $(grep -v '^#' "$crontab" | tr '\n' ' ')"
exec supercronic -prometheus-listen-address "0.0.0.0:${SCHEDULER_METRICS_PORT:-9746}" "$crontab"
