#!/usr/bin/env bash
# make test-load: a real load run on an isolated lab (own project and subnet; nothing of a lab
# the user has running is touched). A Locust master and two workers run every transport for
# 45 s, 200 sessions in all, over the test lab's fleet of 3 emulated devices; then a short sweep
# of one transport during an InfluxDB outage, replayed after it; then a web UI run (make
# load-up) started with no run time; then test_load_e2e.py checks, from the load test image on
# the lab network: 0 errors, every transport's stats in InfluxDB (stored = reported) and
# Prometheus, the Load dashboard's queries, the results files, the web run's bound.
set -euo pipefail
# shellcheck source=tests/e2e/lab.sh
. "$(dirname "$0")/../../../tests/e2e/lab.sh"  # end_lab
: "${LOAD_E2E_COMPOSE:?the docker compose command of the isolated lab}"
: "${LAB_TEST_NET:?the /24 of the isolated lab, e.g. 198.18.108}"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
load_run=load-e2e-$stamp sweep_run=sweep-e2e-$stamp web_run=web-e2e-$stamp
gnmi_run=gnmi-e2e-$stamp
web_limit_s=10
logs=$(mktemp -d)
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  rm -rf "$logs"
  end_lab "$LOAD_E2E_COMPOSE" --profile load rm -sf load-master load-worker
}
trap cleanup EXIT
export LOAD_UID="${LOAD_UID:-$(id -u)}" LOAD_GID="${LOAD_GID:-$(id -g)}"
started=$(date +%s)

$LOAD_E2E_COMPOSE up -d --wait device netem influxdb pushgateway prometheus

# The test lab's fleet of 3 (compose.test.yaml) as an inventory, in the results volume.
in_load() { $LOAD_E2E_COMPOSE run --rm -T --no-deps "$@"; }
in_load --entrypoint sh load-master -c "cat > /results/fleet-e2e.yaml" <<YAML
lab: true
targets:
- {name: lab-r1, host: ${LAB_TEST_NET}.129, metrics_url: "http://${LAB_TEST_NET}.129:9100"}
- {name: lab-r2, host: ${LAB_TEST_NET}.130}
- {name: lab-r3, host: ${LAB_TEST_NET}.131}
YAML

# 1. Master + 2 workers, 200 sessions at once (12 or 13 per transport), 45 s, headless: the
#    README's 200-session runs, shortened; the master's exit code.
status=0
LOAD_UI=headless LOAD_WORKERS=2 TRANSPORT=all USERS=200 SPAWN_RATE=50 DURATION=45 \
  LOAD_RUN_ID="$load_run" LOAD_TARGETS=/results/fleet-e2e.yaml \
  $LOAD_E2E_COMPOSE --profile load up --scale load-worker=2 --exit-code-from load-master \
  load-master load-worker >"$logs/load" 2>&1 || status=$?
grep -v 'paramiko' "$logs/load" | tail -40
if [ "$status" -ne 0 ]; then echo "test-load: the load run exited $status"; exit 1; fi

# 2. A short sweep (one transport, 2 steps of 10 s), one process, with InfluxDB stopped the
#    whole time: every point goes to the spool, and the runner's replay stores it afterwards.
$LOAD_E2E_COMPOSE stop influxdb
in_load load-master sweep --transport https-keepalive --steps 1,4 --step-seconds 10 \
  --spawn-rate 20 --run-id "$sweep_run" 2>&1 | grep -v 'spooled to' | tail -15
$LOAD_E2E_COMPOSE up -d --wait influxdb
in_load bench-runner replay | tail -5

# 2b. gNMI streams: gnmi-stream swept over 1 and 4 streams at 100 ms, then at 50 ms (4 steps
#     of 6 s, every stream stopped at the change of interval), one process.
in_load load-master sweep --transport gnmi-stream --steps 1,4 --step-seconds 6 \
  --spawn-rate 20 --gnmi-intervals 100,50 --run-id "$gnmi_run" 2>&1 | tail -5

# 3. The web UI with a worker, as make load-up starts it; the test is started the way the
#    form does, with its run time cleared: the lab must stop it after web_limit_s, and the
#    master and the worker must then exit by themselves.
LOAD_UI=web LOAD_WORKERS=1 TRANSPORT=https-keepalive USERS=2 SPAWN_RATE=2 \
  DURATION=$web_limit_s LOAD_RUN_ID="$web_run" \
  $LOAD_E2E_COMPOSE --profile load up -d --scale load-worker=1 load-master load-worker
in_load --entrypoint python3 load-master -c '
import json, time, urllib.parse, urllib.request
ui = "http://load-master:8089"
def report():
    with urllib.request.urlopen(ui + "/stats/requests", timeout=5) as answer:
        return json.load(answer)
def waits_for(what, ready, tries):
    for _ in range(tries):
        try:
            if ready(report()):
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit("test-load: the web UI " + what)
# A swarm asked for before a worker has connected is accepted and then dropped by Locust.
waits_for("never had a ready worker", lambda r: any(w["state"] == "ready" for w in r.get("workers", [])), 120)
form = urllib.parse.urlencode({"user_count": 2, "spawn_rate": 2, "run_time": ""}).encode()
with urllib.request.urlopen(ui + "/swarm", form, timeout=5) as answer:
    print("web UI:", json.load(answer)["message"])
waits_for("never started the test", lambda r: r["state"] in ("spawning", "running"), 60)
'
status=0
read -ra compose <<<"$LOAD_E2E_COMPOSE"  # timeout runs a command, not a shell line
timeout $(( web_limit_s + 60 )) "${compose[@]}" --profile load wait load-master load-worker \
  >/dev/null || status=$?
if [ "$status" -eq 124 ]; then echo "test-load: the web UI run did not end by itself"; exit 1; fi
if [ "$status" -ne 0 ]; then echo "test-load: the web UI run exited $status"; exit 1; fi

# 4. The checks.
LOAD_RUN=$load_run SWEEP_RUN=$sweep_run WEB_RUN=$web_run WEB_LIMIT_S=$web_limit_s \
  GNMI_RUN=$gnmi_run in_load -e LOAD_RUN -e SWEEP_RUN -e WEB_RUN -e WEB_LIMIT_S -e GNMI_RUN \
  -e PROMETHEUS_URL=http://prometheus:9090 \
  -v "$PWD/grafana:/grafana:ro" -v "$PWD/tests/e2e:/e2e:ro" \
  --entrypoint python3 load-master -m pytest /app/tests/e2e -p no:cacheprovider -v
echo "test-load: $(( $(date +%s) - started )) s"
