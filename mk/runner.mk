# bench-runner targets (included by the root Makefile).
BENCH_PLAN ?= nightly

.PHONY: bench-matrix bench-smoke

bench-matrix: .env ## Run a plan (BENCH_PLAN=nightly: every mode x client x profile), then `bench-runner report`
	run_id=matrix-$$(date -u +%Y%m%dT%H%M%SZ); status=0; \
	$(COMPOSE) run --rm bench-runner run --plan $(BENCH_PLAN) --run-id $$run_id || status=$$?; \
	$(COMPOSE) run --rm bench-runner report $$run_id; exit $$status

bench-smoke: .env ## Quick smoke plan: every mode and client at local, 3 iterations
	$(COMPOSE) run --rm bench-runner run --plan smoke
