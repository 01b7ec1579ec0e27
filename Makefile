# Transport Lab — `make` lists the targets.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

COMPOSE ?= docker compose
GO_IMAGE ?= golang:1.26-bookworm
PROFILE ?= regional
ITERATIONS ?= 20
WARMUP ?= 2
MODES ?=
# `make up` starts every service; SERVICES narrows it (e.g. where the Grafana image is unavailable).
SERVICES ?=
# Services `make test` needs; Grafana is tested offline (its image cannot run everywhere).
CORE_SERVICES := device netem influxdb pushgateway prometheus
TEST_COMPOSE := $(COMPOSE) -p transport-lab-test -f compose.yaml -f compose.test.yaml

# Recorded in every result so a number can be traced to the lab that produced it.
export LAB_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)

# Per-component targets (device benches, fuzzing, ...) live beside this file in mk/.
-include mk/*.mk

.PHONY: help env build up down bench logs ps clean test test-compose test-runner test-prometheus test-e2e

help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[36m%-20s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo; echo "  Variables: PROFILE=$(PROFILE) ITERATIONS=$(ITERATIONS) WARMUP=$(WARMUP) MODES=<m1,m2> SERVICES=<for up>"

env: .env ## Create .env from .env.example with fresh random secrets (never overwrites)

.env:
	@cp .env.example .env.tmp
	@while grep -q '@generate@' .env.tmp; do \
	  secret=$$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n'); \
	  sed -i "0,/@generate@/s//$$secret/" .env.tmp; done
	@chmod 600 .env.tmp && mv .env.tmp .env
	@echo "created .env with random secrets (device, InfluxDB, Grafana passwords)"

build: .env ## Build the lab's own images (device, netem, bench-runner)
	$(COMPOSE) --profile tools build device netem bench-runner

up: build ## Build, start the lab, wait until every service is healthy, print the URLs
	$(COMPOSE) up -d --wait $(SERVICES)
	@set -a; source .env; set +a; \
	echo; echo "Transport Lab is up (credentials in .env):"; \
	echo "  Grafana     http://127.0.0.1:$${LAB_GRAFANA_PORT}/d/transport-comparison  (admin / GRAFANA_ADMIN_PASSWORD)"; \
	echo "  Prometheus  http://127.0.0.1:$${LAB_PROMETHEUS_PORT}"; \
	echo "  InfluxDB    http://127.0.0.1:$${LAB_INFLUXDB_PORT}  (db transport_lab)"; \
	echo "  Device      ssh -p $${LAB_SSH_PORT} $${DEVICE_USERNAME}@127.0.0.1 | https://127.0.0.1:$${LAB_HTTPS_PORT}/admin/exec/show+version"; \
	echo "  Netem API   http://127.0.0.1:$${LAB_NETEM_PORT}/profile"; \
	echo; echo "Run a benchmark: make bench PROFILE=regional"

down: ## Stop the lab (data volumes are kept)
	$(COMPOSE) --profile tools down

bench: .env ## Run the benchmark: make bench PROFILE=regional [ITERATIONS=20] [MODES=ssh/fresh-conn,...]
	$(COMPOSE) run --rm bench-runner run --profile $(PROFILE) --iterations $(ITERATIONS) --warmup $(WARMUP) \
	  $(if $(MODES),--modes $(MODES))

logs: ## Follow the lab's logs
	$(COMPOSE) logs -f --tail=100

ps: ## Show the lab's services and their health
	$(COMPOSE) ps

clean: ## Stop the lab and delete its volumes (InfluxDB, Prometheus, Grafana, device keys); keeps results/
	$(COMPOSE) --profile tools down -v --remove-orphans
	$(TEST_COMPOSE) --profile tools down -v --remove-orphans

test: test-compose test-go fuzz-short test-device test-netem test-netem-tc check-netem-restart test-prometheus test-dashboards test-runner test-e2e test-sink-spool test-faults ## Run every test: unit, integration and end-to-end on the real lab

test-compose: .env ## Compose files: valid for every profile; ports on 127.0.0.1 only, none in the test overlay
	$(COMPOSE) --profile tools config -q
	$(COMPOSE) --profile tools config --format json | python3 tests/compose/published_ports.py --loopback
	$(TEST_COMPOSE) --profile tools config -q
	$(TEST_COMPOSE) --profile tools config --format json | python3 tests/compose/published_ports.py --none

test-prometheus: ## promtool: check the config and unit-test the recording/alert rules
	docker run --rm -v "$(CURDIR)/prometheus:/etc/prometheus:ro" --entrypoint promtool \
	  $${PROMETHEUS_IMAGE:-prom/prometheus:v3.7.3} check config /etc/prometheus/prometheus.yml
	docker run --rm -v "$(CURDIR)/prometheus:/etc/prometheus:ro" -w /etc/prometheus --entrypoint promtool \
	  $${PROMETHEUS_IMAGE:-prom/prometheus:v3.7.3} test rules tests/transport_test.yml

test-runner: build ## bench-runner unit tests (in its image)
	docker run --rm --entrypoint python3 $${RUNNER_IMAGE:-transport-lab/bench-runner:dev} \
	  -m pytest /app/tests -p no:cacheprovider

test-e2e: build ## End to end: an isolated lab, every mode at local and regional, sinks and dashboard queries
	$(TEST_COMPOSE) up -d --wait $(CORE_SERVICES)
	status=0; $(TEST_COMPOSE) run --rm --entrypoint python3 bench-runner \
	  -m pytest /tests/e2e -p no:cacheprovider -v || status=$$?; \
	if [ $$status -ne 0 ]; then $(TEST_COMPOSE) logs --tail=80 $(CORE_SERVICES) || true; fi; \
	$(TEST_COMPOSE) --profile tools down -v --remove-orphans; exit $$status
