# bench-runner targets (included by the root Makefile).
##@ Runner (bench-runner)
BENCH_PLAN ?= nightly
RUNNER_TEST_IMAGE ?= transport-lab/bench-runner-test:dev

.PHONY: bench-matrix bench-smoke fleet-inventory bench-fleet runner-test-image test-runner lint-runner test-sink-spool test-faults

runner-test-image: .env
	$(TEST_COMPOSE) --profile tools build bench-runner

test-runner: runner-test-image ## bench-runner unit tests (in its test image)
	docker run --rm -e CI --entrypoint python3 $(RUNNER_TEST_IMAGE) \
	  -m pytest /app/tests -p no:cacheprovider --ignore=/app/tests/integration

lint-runner: runner-test-image ## ruff (lint, format) on bench-runner and tests/e2e, mypy --strict on bench-runner
	docker run --rm -v "$(CURDIR)/tests/e2e:/e2e:ro" -w /app --entrypoint sh $(RUNNER_TEST_IMAGE) -c \
	  'ruff check --config pyproject.toml src tests /e2e && ruff format --check --config pyproject.toml src tests /e2e \
	   && mypy --strict src'

bench-matrix: .env ## Run a plan (BENCH_PLAN=nightly: every mode x client x profile), then `bench-runner report`
	run_id=matrix-$$(date -u +%Y%m%dT%H%M%SZ); status=0; \
	$(COMPOSE) run --rm bench-runner run --plan $(BENCH_PLAN) --run-id $$run_id || status=$$?; \
	$(COMPOSE) run --rm bench-runner report $$run_id; exit $$status

fleet-inventory: .env ## Write results/fleet.yaml: the lab's emulated devices (DEVICE_FLEET_SIZE), for --targets
	$(COMPOSE) run --rm bench-runner inventory

bench-fleet: fleet-inventory ## Every emulated device under PROFILE, each RTT-verified: make bench-fleet PROFILE=regional [MODES=...]
	$(COMPOSE) run --rm bench-runner run --targets /results/fleet.yaml --profile $(PROFILE) \
	  $(if $(ITERATIONS),--iterations $(ITERATIONS)) $(if $(WARMUP),--warmup $(WARMUP)) $(if $(MODES),--modes $(MODES))

bench-smoke: .env ## Quick smoke plan: every mode and client at local, 3 iterations
	$(COMPOSE) run --rm bench-runner run --plan smoke

# A sink that is down never loses a point: an isolated lab (own project, like `make test`)
# whose InfluxDB is stopped while the fastest modes run at `local`; every point the run reports
# must be spooled and, after a replay, stored (bench-runner/tests/integration/).
SPOOL_COMPOSE ?= $(COMPOSE) -p transport-lab-spool -f compose.yaml -f compose.test.yaml
SPOOL_NET ?= 198.18.102

test-sink-spool: build runner-test-image ## Stop InfluxDB, run, start it, replay: every reported point is stored
	LAB_TEST_NET=$(SPOOL_NET) SPOOL_COMPOSE="$(SPOOL_COMPOSE)" \
	  bench-runner/tests/integration/spool_outage.sh

# A fault never produces a number: an isolated lab (own project) where the device restarts
# mid-mode and a second run meets a busy lab (bench-runner/tests/integration/faults.sh).
FAULTS_COMPOSE ?= $(COMPOSE) -p transport-lab-faults -f compose.yaml -f compose.test.yaml
FAULTS_NET ?= 198.18.103

test-faults: build runner-test-image ## Restart the device mid-mode and start a second run on a busy lab: no number from either
	LAB_TEST_NET=$(FAULTS_NET) FAULTS_COMPOSE="$(FAULTS_COMPOSE)" \
	  bench-runner/tests/integration/faults.sh
