# Load tests with Locust (load/, docs/load.md), included by the root Makefile.
##@ Load (Locust)

LOAD_IMAGE ?= transport-lab/load:dev
LOAD_TEST_IMAGE ?= transport-lab/load-test:dev
TRANSPORT ?= all
USERS ?= 10
SPAWN_RATE ?= 10
DURATION ?= 60
STEPS ?= 1,10,50,100,200,500
STEP_SECONDS ?= 60
# Users started per second within a sweep's step (a step's figures start after its ramp-up).
SWEEP_SPAWN_RATE ?= 50
# gnmi-stream: each subscription's sample interval (ms), and a sweep's intervals (its streams'
# steps once per interval; empty: GNMI_INTERVAL_MS alone). The lab's device accepts 1 ms up.
GNMI_INTERVAL_MS ?= 100
GNMI_INTERVALS ?=
# Workers of `make load` / `make sweep`: 0 runs one Locust process; N starts a master and N
# workers (compose profile load, --scale load-worker=N).
WORKERS ?= 0
# Worker processes Locust forks in the one container (--processes), when WORKERS is 0.
PROCESSES ?= 0
LOAD_PROCESSES = $(if $(filter-out 0,$(PROCESSES)),--processes $(PROCESSES))
# An inventory under results/ (make fleet-inventory writes results/fleet.yaml): users spread
# over its devices. Empty: the lab's device.
TARGETS ?=
LOAD_RUN_ID ?=
# What the SSH and HTTPS exec transports run (e.g. `show payload 26624` for 26 KB replies).
LOAD_COMMAND ?= show version
# Load containers run as the invoking user, so results/ stays theirs.
export LOAD_UID ?= $(shell id -u)
export LOAD_GID ?= $(shell id -g)
LOAD_COMPOSE_TARGETS = $(if $(TARGETS),--targets /results/$(patsubst results/%,%,$(TARGETS)))

.PHONY: load-image load-test-image load sweep load-up load-down test-load-unit lint-load test-k8s test-load

load-image: .env
	$(COMPOSE) --profile load build load-master

load-test-image:
	docker build -q -f load/Dockerfile --target test -t $(LOAD_TEST_IMAGE) . >/dev/null

load: load-image ## Headless, bounded load: make load TRANSPORT=ssh-reuse,restconf USERS=50 SPAWN_RATE=10 DURATION=2m [WORKERS=2] [TARGETS=results/fleet.yaml]
ifeq ($(WORKERS),0)
	$(COMPOSE) run --rm load-master run --transport $(TRANSPORT) --users $(USERS) \
	  --spawn-rate $(SPAWN_RATE) --duration $(DURATION) $(LOAD_COMPOSE_TARGETS) $(LOAD_PROCESSES) \
	  --command "$(LOAD_COMMAND)" --gnmi-interval-ms $(GNMI_INTERVAL_MS) \
	  $(if $(LOAD_RUN_ID),--run-id $(LOAD_RUN_ID))
else
	LOAD_UI=headless LOAD_WORKERS=$(WORKERS) TRANSPORT=$(TRANSPORT) USERS=$(USERS) \
	  SPAWN_RATE=$(SPAWN_RATE) DURATION=$(DURATION) LOAD_RUN_ID=$(LOAD_RUN_ID) \
	  LOAD_COMMAND="$(LOAD_COMMAND)" \
	  LOAD_TARGETS=$(if $(TARGETS),/results/$(patsubst results/%,%,$(TARGETS))) \
	  $(COMPOSE) --profile load up --scale load-worker=$(WORKERS) --exit-code-from load-master \
	  load-master load-worker
endif

sweep: load-image ## Step the users per transport, stats after each ramp-up, knee: make sweep TRANSPORT=... STEPS=1,10,50 STEP_SECONDS=30 [GNMI_INTERVALS=1000,100,10]
	$(COMPOSE) run --rm load-master sweep --transport $(TRANSPORT) --steps $(STEPS) \
	  --step-seconds $(STEP_SECONDS) --spawn-rate $(SWEEP_SPAWN_RATE) $(LOAD_PROCESSES) \
	  --gnmi-interval-ms $(GNMI_INTERVAL_MS) $(if $(GNMI_INTERVALS),--gnmi-intervals $(GNMI_INTERVALS)) \
	  --command "$(LOAD_COMMAND)" $(LOAD_COMPOSE_TARGETS) $(if $(LOAD_RUN_ID),--run-id $(LOAD_RUN_ID))

# The form starts with TRANSPORT's users, USERS, SPAWN_RATE and DURATION; a test runs at most
# DURATION whatever the form says, and Locust quits when it stops (one run per load-up).
load-up: load-image ## Locust's web UI on http://127.0.0.1:8089 with WORKERS (default 2) workers, one run of at most DURATION
	LOAD_COMMAND="$(LOAD_COMMAND)" LOAD_WORKERS=$(if $(filter 0,$(WORKERS)),2,$(WORKERS)) \
	  TRANSPORT=$(TRANSPORT) USERS=$(USERS) SPAWN_RATE=$(SPAWN_RATE) DURATION=$(DURATION) \
	  LOAD_RUN_ID=$(LOAD_RUN_ID) \
	  LOAD_TARGETS=$(if $(TARGETS),/results/$(patsubst results/%,%,$(TARGETS))) \
	  $(COMPOSE) --profile load up -d \
	  --scale load-worker=$(if $(filter 0,$(WORKERS)),2,$(WORKERS)) load-master load-worker

load-down: ## Stop Locust's master and workers
	$(COMPOSE) --profile load stop load-master load-worker

test-load-unit: load-test-image ## Unit tests of the load package (in its test image)
	docker run --rm --entrypoint python3 $(LOAD_TEST_IMAGE) -m pytest /app/tests/unit -p no:cacheprovider -q

lint-load: load-test-image ## ruff (lint, format) and mypy --strict on the load package (and deploy/k8s's checker)
	docker run --rm -w /app -v "$(CURDIR)/deploy/k8s:/k8s:ro" --entrypoint sh $(LOAD_TEST_IMAGE) -c \
	  'ruff check --no-cache --config pyproject.toml src tests /k8s \
	   && ruff format --no-cache --config pyproject.toml --check src tests /k8s \
	   && mypy --strict --cache-dir /tmp/mypy src /k8s/validate.py'

test-k8s: load-test-image ## deploy/k8s offline: every object against the Kubernetes schema (strict), the LocustTest, NET_ADMIN on netem only
	docker run --rm -v "$(CURDIR)/deploy/k8s:/k8s:ro" --entrypoint python3 $(LOAD_TEST_IMAGE) /k8s/validate.py

# A real load run on an isolated lab (own project and subnet, like test-faults): 20 users per
# transport (200 sessions at once) for 60 s through a master and two workers, a sweep during an
# InfluxDB outage and a web UI run with no run time; then the stats are checked in InfluxDB,
# Prometheus, the Load dashboard's queries and the results files (load/tests/e2e/load_e2e.sh).
LOAD_E2E_COMPOSE ?= $(COMPOSE) -p transport-lab-load -f compose.yaml -f compose.test.yaml
LOAD_E2E_NET ?= 198.18.108

test-load: build load-image load-test-image test-load-unit ## 60 s of every transport, master + 2 workers: 0 errors, stats in InfluxDB and Prometheus, dashboard
	LAB_TEST_NET=$(LOAD_E2E_NET) LOAD_E2E_COMPOSE="$(LOAD_E2E_COMPOSE)" \
	  LOAD_TEST_IMAGE=$(LOAD_TEST_IMAGE) load/tests/e2e/load_e2e.sh
