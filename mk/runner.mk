# bench-runner targets (included by the root Makefile).
BENCH_PLAN ?= nightly

.PHONY: bench-matrix bench-smoke test-sink-spool

bench-matrix: .env ## Run a plan (BENCH_PLAN=nightly: every mode x client x profile), then `bench-runner report`
	run_id=matrix-$$(date -u +%Y%m%dT%H%M%SZ); status=0; \
	$(COMPOSE) run --rm bench-runner run --plan $(BENCH_PLAN) --run-id $$run_id || status=$$?; \
	$(COMPOSE) run --rm bench-runner report $$run_id; exit $$status

bench-smoke: .env ## Quick smoke plan: every mode and client at local, 3 iterations
	$(COMPOSE) run --rm bench-runner run --plan smoke

# A sink that is down never loses data: an isolated lab (own project, like `make test`); a
# run whose InfluxDB is stopped while it measures must spool its points, and after InfluxDB
# is started again `bench-runner replay` must deliver every one of them
# (bench-runner/tests/integration/test_spool_delivery.py checks InfluxDB and the spool).
# docker compose runs here on the host; no container gets the docker socket.
SPOOL_COMPOSE ?= LAB_TEST_SUBNET=198.18.102.0/24 $(COMPOSE) -p transport-lab-spool -f compose.yaml -f compose.test.yaml
SPOOL_STOP_AFTER_S ?= 12

test-sink-spool: .env ## Stop InfluxDB mid-run, start it, replay: assert every point arrived
	run_id=spool-$$(date -u +%Y%m%dT%H%M%SZ); log=$$(mktemp); status=0; \
	$(SPOOL_COMPOSE) up -d --wait device netem influxdb pushgateway; \
	$(SPOOL_COMPOSE) run --rm -T bench-runner run --profile regional \
	  --modes ssh/reuse-conn,https/keep-alive --iterations 40 --warmup 1 --run-id $$run_id \
	  >$$log 2>&1 & runner=$$!; \
	sleep $(SPOOL_STOP_AFTER_S); \
	if ! kill -0 $$runner 2>/dev/null; then \
	  echo "test-sink-spool: the run ended before InfluxDB was stopped"; status=1; fi; \
	$(SPOOL_COMPOSE) stop influxdb; \
	wait $$runner || echo "test-sink-spool: run exit status $$? (modes are judged by the assertions below)"; \
	cat $$log; \
	grep -q "influxdb unavailable" $$log || { echo "test-sink-spool: the run did not spool"; status=1; }; \
	$(SPOOL_COMPOSE) run --rm -T --no-deps --entrypoint ls bench-runner /results/spool \
	  | grep -x "$$run_id.lp" >/dev/null || { echo "test-sink-spool: $$run_id.lp not in the spool"; status=1; }; \
	$(SPOOL_COMPOSE) up -d --wait influxdb; \
	$(SPOOL_COMPOSE) run --rm -T bench-runner replay || status=1; \
	$(SPOOL_COMPOSE) run --rm -T --no-deps -e SPOOL_TEST_RUN_ID=$$run_id --entrypoint python3 \
	  bench-runner -m pytest /app/tests/integration -p no:cacheprovider -v || status=1; \
	rm -f $$log; $(SPOOL_COMPOSE) --profile tools down -v --remove-orphans; exit $$status
