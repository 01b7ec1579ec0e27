# Transport Lab — `make` lists the targets, by section.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

COMPOSE ?= docker compose
GO_IMAGE ?= golang:1.26-trixie
# `make bench` measures at a WAN latency; the runner alone defaults to local.
PROFILE ?= regional
# Empty: the plan's values (bench-runner's Plan holds the defaults).
ITERATIONS ?=
PRECISION ?=
WARMUP ?=
MODES ?=
CLIENTS ?=
# `make up` starts every service; SERVICES narrows it (e.g. where the Grafana image is unavailable).
SERVICES ?=
# Services `make test` needs; Grafana is tested offline (its image cannot run everywhere).
# alertmanager brings the test lab's webhook receiver with it (compose.test.yaml).
CORE_SERVICES := device netem jumphost headend netem-wan influxdb pushgateway prometheus alertmanager
# `make test` runs on an isolated copy of the lab: its own project, subnet and volumes.
TEST_COMPOSE := $(COMPOSE) -p transport-lab-test -f compose.yaml -f compose.test.yaml

# The runner prints where a run's files are on this host (compose mounts ./results).
export RESULTS_HOST_DIR ?= $(CURDIR)/results
# Recorded in every result so a number can be traced to the lab that produced it.
export LAB_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)

.PHONY: help env env-secrets standins build up down logs ps clean purge bench replay test lint lint-shell \
	doc-examples-image \
	test-compose test-prometheus test-e2e

help:
	@awk 'BEGIN {FS = ":.*## "} \
	  /^##@ / {printf "\n\033[1m%s\033[0m\n", substr($$0, 5)} \
	  /^[a-zA-Z0-9_-]+:.*## / {printf "  \033[36m%-20s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo; echo "  Variables: PROFILE=$(PROFILE) ITERATIONS=<plan's> PRECISION=<plan's> WARMUP=<plan's> MODES=<m1,m2> SERVICES=<for up>"

##@ The lab

env: .env ## Create .env from .env.example with fresh random secrets (never overwrites)

.env:
	@cp .env.example .env.tmp
	@while grep -q '@generate@' .env.tmp; do \
	  secret=$$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n'); \
	  sed -i "0,/@generate@/s//$$secret/" .env.tmp; done
	@chmod 600 .env.tmp && mv .env.tmp .env
	@echo "created .env with random secrets (device, InfluxDB, Grafana passwords)"

# An .env made before a secret was added to .env.example gets that one, generated, and nothing
# else changes: `make up` then works without a new .env.
env-secrets: .env
	@for key in $$(sed -n 's/^\([A-Z0-9_]*\)=@generate@$$/\1/p' .env.example); do \
	  grep -q "^$$key=" .env && continue; \
	  secret=$$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n'); \
	  echo "$$key=$$secret" >>.env; echo "  .env: added $$key (generated)"; done

standins: .env ## No container registry: build stand-ins of the official images and select them in .env
	@lines=$$(ci/build-standins); for line in $$lines; do \
	  sed -i "/^$${line%%=*}=/d" .env; echo "$$line" >>.env; echo "  .env: $$line"; done

build: .env env-secrets ## Build the lab's own images (device, netem, jump host, head-end, bench-runner)
	$(COMPOSE) --profile tools build device netem jumphost headend bench-runner
	@# Runs started with `docker compose run` record the commit the images were built from.
	@sed -i '/^LAB_COMMIT=/d' .env && echo "LAB_COMMIT=$(LAB_COMMIT)" >>.env

up: build ## Build, start the lab, wait until every service is healthy, print what runs where
	$(COMPOSE) up -d --wait $(SERVICES)
	@set -a; source .env; set +a; \
	running=$$($(COMPOSE) ps --status running --services); \
	url() { grep -qx "$$1" <<<"$$running" && printf '  %-12s %s\n' "$$2" "$$3" || true; }; \
	echo; echo "Transport Lab is up (credentials in .env):"; \
	url grafana Grafana "http://127.0.0.1:$${LAB_GRAFANA_PORT:-3000}/d/transport-comparison  (admin / GRAFANA_ADMIN_PASSWORD)"; \
	url prometheus Prometheus "http://127.0.0.1:$${LAB_PROMETHEUS_PORT:-9090}"; \
	url alertmanager Alertmanager "http://127.0.0.1:$${LAB_ALERTMANAGER_PORT:-9093}  (receivers: ALERT_* in .env)"; \
	url influxdb InfluxDB "http://127.0.0.1:$${LAB_INFLUXDB_PORT:-8086}  (db transport_lab)"; \
	url device Device "ssh -p $${LAB_SSH_PORT:-2222} $${DEVICE_USERNAME}@127.0.0.1 | https://127.0.0.1:$${LAB_HTTPS_PORT:-8443}/admin/exec/show+version"; \
	url netem "Netem API" "http://127.0.0.1:$${LAB_NETEM_PORT:-8181}/profile"; \
	url jumphost "Jump host" "ssh -p $${LAB_JUMP_PORT:-2223} $${JUMP_USERNAME:-jump}@127.0.0.1  (relays only: ssh -J)"; \
	url headend "Head-end" "https://127.0.0.1:$${LAB_HEADEND_PORT:-9443}/healthz  (API: docs/relays.md)"; \
	url netem-wan "WAN netem" "http://127.0.0.1:$${LAB_NETEM_WAN_PORT:-8182}/profile  (the remote site's link)"; \
	echo; echo "Run a benchmark: make bench PROFILE=regional"; \
	case ",$${NETEM_PORTS:-9339}," in *,9339,*) ;; *) \
	  echo "warning: .env sets NETEM_PORTS=$$NETEM_PORTS without gNMI's 9339 (a .env made before" \
	    "gNMI): netem leaves gNMI undelayed and the gNMI modes refuse to measure; add 9339 to it" >&2;; esac

down: ## Stop the lab (data volumes are kept)
	$(COMPOSE) --profile tools down

logs: ## Follow the lab's logs
	$(COMPOSE) logs -f --tail=100

ps: ## Show the lab's services and their health
	$(COMPOSE) ps

clean: ## Stop the lab and delete its volumes (InfluxDB, Prometheus, Grafana, device keys); keeps results/
	$(COMPOSE) --profile tools --profile nightly --profile load --profile reports down -v --remove-orphans
	$(TEST_COMPOSE) --profile tools --profile nightly --profile load down -v --remove-orphans

purge: clean ## clean, and delete the lab's images, Go caches and build cache too; keeps results/ and .env
	docker image ls --format '{{.Repository}}:{{.Tag}}' \
	  | grep -E '^transport-lab(-standin)?/' | xargs -r docker image rm -f
	docker volume rm -f transport-lab-gomod transport-lab-gocache
	docker image prune -f
	docker builder prune -f
	@echo "kept: results/ (every run's files) and .env (the lab's secrets)"

##@ Benchmarks

bench: .env ## Run the benchmark: make bench PROFILE=regional [PRECISION=pct | ITERATIONS=n] [WARMUP=n] [MODES=ssh/fresh-conn,...] [CLIENTS=floor,aioquic|all]
	$(COMPOSE) run --rm bench-runner run --profile $(PROFILE) $(if $(ITERATIONS),--iterations $(ITERATIONS)) \
	  $(if $(PRECISION),--precision $(PRECISION)) \
	  $(if $(WARMUP),--warmup $(WARMUP)) $(if $(MODES),--modes $(MODES)) $(if $(CLIENTS),--clients $(CLIENTS))

replay: .env ## Deliver what the runner spooled while InfluxDB or the Pushgateway was down
	$(COMPOSE) run --rm bench-runner replay

##@ Tests and lint

test: lint test-compose test-docs test-go test-headend fuzz-short test-prometheus test-alertmanager test-dashboards test-runner test-fleet-tools test-goclient test-load-unit test-k8s test-netem test-device test-netem-tc check-netem-restart test-e2e ## Every test: lint, unit, integration, and end to end on one isolated copy of the lab (CONTRIBUTING.md)

lint: lint-go lint-headend lint-goclient lint-netem lint-runner lint-fleet-tools lint-dashboards lint-load lint-alertmanager lint-shell ## Every gate: ruff and mypy --strict, go vet, staticcheck and gofmt, shellcheck, amtool

SHELLCHECK_IMAGE ?= transport-lab/shellcheck:dev

lint-shell: ## shellcheck on every shell script of the repository
	docker build -q -t $(SHELLCHECK_IMAGE) ci/shellcheck >/dev/null
	scripts=$$(git ls-files -co --exclude-standard | while read -r f; do \
	  if [ -f "$$f" ] && head -c 64 "$$f" | grep -q '^#!.*\(bash\|/sh\)'; then echo "$$f"; fi; done); \
	docker run --rm -v "$(CURDIR):/src:ro" $(SHELLCHECK_IMAGE) -x $$scripts

test-compose: .env ## Compose files: valid for every profile; ports on 127.0.0.1 only, none in the test overlay; pins
	$(COMPOSE) --profile tools --profile nightly --profile reports --profile load config -q
	$(COMPOSE) --profile tools --profile nightly --profile reports --profile load config --format json | python3 tests/unit/compose/published_ports.py --loopback
	$(TEST_COMPOSE) --profile tools --profile nightly --profile reports --profile load config -q
	$(TEST_COMPOSE) --profile tools --profile nightly --profile reports --profile load config --format json | python3 tests/unit/compose/published_ports.py --none
	python3 tests/unit/compose/pins.py

test-prometheus: .env ## promtool: check the config and unit-test the recording/alert rules
	$(TEST_COMPOSE) run --rm --no-deps --entrypoint promtool prometheus \
	  check config /etc/prometheus/prometheus.yml
	$(TEST_COMPOSE) run --rm --no-deps -w /etc/prometheus --entrypoint promtool prometheus \
	  test rules tests/transport_test.yml tests/verdicts_test.yml tests/nightly_test.yml

# One isolated lab (compose.test.yaml: its own project, subnet and volumes) for every end-to-end
# check: the suite in tests/e2e, then each scenario on the same lab (LAB_SHARED=1: the lab is
# started once, and each scenario puts back what it changed; the docs' examples come after the
# verdict nights, the small runs `make report` draws). Each scenario also has a target of
# its own that runs it on a lab of its own (test-report, test-sink-spool, test-faults,
# test-verdicts, test-nightly, test-load).
TEST_NET := 198.18.101
E2E_SHARED = LAB_SHARED=1 LAB_TEST_NET=$(TEST_NET)

DOC_EXAMPLES_IMAGE ?= transport-lab/doc-examples:dev

doc-examples-image:
	docker build -q -t $(DOC_EXAMPLES_IMAGE) tests/e2e/doc_examples >/dev/null

test-e2e: build runner-test-image report-test-image scheduler-image load-image load-test-image doc-examples-image ## End to end on one isolated lab: every mode at local and regional, sinks, time split, dashboards, then every scenario
	$(TEST_COMPOSE) up -d --wait $(CORE_SERVICES)
	status=0; failed=""; \
	scenario() { name=$$1; shift; echo "=== test-e2e: $$name"; started=$$(date +%s); \
	  "$$@" || { status=1; failed="$$failed $$name"; }; echo "=== test-e2e: $$name $$(( $$(date +%s) - started )) s"; }; \
	scenario suite $(TEST_COMPOSE) run --rm --entrypoint python3 bench-runner \
	  -m pytest /tests/e2e -p no:cacheprovider -v --durations=15; \
	scenario report env $(E2E_SHARED) RUNNER_TEST_IMAGE=$(REPORT_TEST_IMAGE) \
	  REPORT_COMPOSE="$(TEST_COMPOSE)" REPORT_ARTIFACTS="$(CURDIR)/results/test-report" \
	  bench-runner/tests/e2e/report.sh; \
	scenario sink-spool env $(E2E_SHARED) SPOOL_COMPOSE="$(TEST_COMPOSE)" bench-runner/tests/e2e/spool_outage.sh; \
	scenario faults env $(E2E_SHARED) FAULTS_COMPOSE="$(TEST_COMPOSE)" bench-runner/tests/e2e/faults.sh; \
	scenario verdicts env $(E2E_SHARED) VERDICTS_COMPOSE="$(TEST_COMPOSE)" bench-runner/tests/e2e/verdicts.sh; \
	scenario precision env $(E2E_SHARED) PRECISION_COMPOSE="$(TEST_COMPOSE)" bench-runner/tests/e2e/precision.sh; \
	scenario doc-examples env DOC_EXAMPLES_IMAGE=$(DOC_EXAMPLES_IMAGE) \
	  TEST_COMPOSE_PROJECT=transport-lab-test python3 tests/e2e/doc_examples/run.py; \
	$(call NIGHTLY_LAB_INFO,$(TEST_COMPOSE)); \
	scenario nightly env $(E2E_SHARED) NIGHTLY_COMPOSE="$(TEST_COMPOSE)" bench-runner/tests/e2e/nightly.sh; \
	scenario load env $(E2E_SHARED) LOAD_E2E_COMPOSE="$(TEST_COMPOSE)" LOAD_TEST_IMAGE=$(LOAD_TEST_IMAGE) \
	  load/tests/e2e/load_e2e.sh; \
	if [ $$status -ne 0 ]; then echo "test-e2e: failed:$$failed"; $(TEST_COMPOSE) logs --tail=80 $(CORE_SERVICES) || true; fi; \
	$(TEST_COMPOSE) --profile tools --profile nightly --profile load down -v --remove-orphans; exit $$status

# Per-component targets (device, netem, runner, dashboards, your own tools) live in mk/, each
# file a section of the help.
-include mk/*.mk
