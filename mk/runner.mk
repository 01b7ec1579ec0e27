# bench-runner targets (included by the root Makefile).
##@ Runner (bench-runner)
BENCH_PLAN ?= nightly
RUNNER_TEST_IMAGE ?= transport-lab/bench-runner-test:dev

.PHONY: bench-matrix bench-relays bench-impairment fleet-sweep bench-hold bench-smoke bench-targets fleet-inventory bench-fleet runner-test-image test-runner docs-modes lint-runner \
	test-sink-spool test-faults \
	test-verdicts test-precision bench-verdicts

runner-test-image: .env
	$(TEST_COMPOSE) --profile tools build bench-runner

test-runner: runner-test-image ## bench-runner unit tests (in its test image; docs/ mounted for the modes page)
	docker run --rm -e CI -v "$(CURDIR)/docs:/docs:ro" -e DOCS_DIR=/docs --entrypoint python3 \
	  $(RUNNER_TEST_IMAGE) -m pytest /app/tests/unit -p no:cacheprovider

docs-modes: runner-test-image ## Regenerate docs/modes.md from the mode catalog (bench-runner/src/bench_runner/modes/catalog/)
	docker run --rm --entrypoint bench-runner $(RUNNER_TEST_IMAGE) modes --markdown >docs/modes.md.tmp
	mv docs/modes.md.tmp docs/modes.md

# goclient (bench-runner/goclient), the Go programs the scrapligo, quic-go and grpc-go clients
# run in: three modules (h3/ is quic-go's own, so that its x/crypto does not change scrapligo's
# SSH; gnmi/ is grpc-go's, with the gNMI proto of openconfig/gnmi),
# their gates and unit tests in the Go image, the repository read-only; staticcheck is pinned
# by the tool directive of each go.mod (the emulator's version).
GOCLIENT_GO_RO = docker run --rm -v "$(CURDIR):/src:ro" -w /src/bench-runner/goclient \
	-e GOFLAGS=-buildvcs=false -e CI \
	-v transport-lab-gomod:/go/pkg/mod -v transport-lab-gocache:/root/.cache/go-build $(GO_IMAGE)

.PHONY: lint-goclient test-goclient
lint-goclient: ## gofmt -l (must list nothing), go vet and staticcheck on goclient (in the Go image)
	$(GOCLIENT_GO_RO) sh -c 'set -e; unformatted=$$(gofmt -l .); \
	  if [ -n "$$unformatted" ]; then echo "gofmt -l: not formatted:"; echo "$$unformatted"; exit 1; fi; \
	  for module in . h3 gnmi; do (cd $$module && go vet ./... && go tool staticcheck ./...); done'

test-goclient: ## goclient's Go unit tests, race detector on (in the Go image)
	$(GOCLIENT_GO_RO) sh -c 'set -e; for module in . h3 gnmi; do (cd $$module && go test -race -count=1 ./...); done'

lint-runner: runner-test-image ## ruff (lint, format) on bench-runner, the e2e tests and the docs check; mypy --strict on bench-runner
	docker run --rm -v "$(CURDIR)/tests/e2e:/e2e:ro" -v "$(CURDIR)/tests/unit/docs:/docs-check:ro" -w /app \
	  --entrypoint sh $(RUNNER_TEST_IMAGE) -c \
	  'ruff check --config pyproject.toml src tests /e2e /docs-check \
	   && ruff format --check --config pyproject.toml src tests /e2e /docs-check && mypy --strict src'

bench-matrix: .env ## Run a plan (BENCH_PLAN=nightly: every mode x client x profile), then `bench-runner report`
	run_id=matrix-$$(date -u +%Y%m%dT%H%M%SZ); status=0; \
	$(COMPOSE) run --rm bench-runner run --plan $(BENCH_PLAN) --run-id $$run_id || status=$$?; \
	$(COMPOSE) run --rm bench-runner report $$run_id; exit $$status

# The impairment plan (docs/bad-links.md), then its table. Loss is measured with the nfq engine,
# the one whose loss both directions meet as configured (docs/profiles.md, "Impaired profiles"):
# netem is recreated with it for the run and put back as .env has it afterwards, whatever
# happened. NETEM_ENGINE stays exported while the run starts, or compose would recreate netem
# as .env has it. The plan is packaged in the runner's image: build it first. The table is
# written from whatever ran; the exit status is the run's, else the table's.
bench-relays: .env ## Direct against through the jump host and the head-end (regional and continental WAN, campus LAN; ~10 min): docs/relays.md [ITERATIONS=n] [LAN_PROFILE=campus]
	$(COMPOSE) --profile tools build bench-runner
	$(COMPOSE) run --rm bench-runner run --plan relays --run-id relays-$$(date -u +%Y%m%dT%H%M%SZ) \
	  $(if $(ITERATIONS),--iterations $(ITERATIONS)) $(if $(LAN_PROFILE),--lan-profile $(LAN_PROFILE))

fleet-job: .env ## Nornir or Ansible across the fleet (docs/fleet-jobs.md): make fleet-job TOOL=nornir CONNECTION=netmiko [OPERATION=show] [DEVICES=3] [WORKERS=3] [PROFILE=regional] [SSH_TYPE=libssh] [PERSISTENT=no] [COMMANDS="show version;show clock"]
	$(COMPOSE) --profile tools build bench-runner
	$(COMPOSE) run --rm bench-runner fleet-job --tool $(or $(TOOL),nornir) \
	  --connection $(or $(CONNECTION),$(if $(filter ansible,$(TOOL)),network_cli,netmiko)) \
	  --operation $(or $(OPERATION),show) --devices $(or $(DEVICES),3) --workers $(if $(filter-out 0,$(WORKERS)),$(WORKERS),3) \
	  --profile $(or $(PROFILE),regional) $(if $(SSH_TYPE),--ssh-type $(SSH_TYPE)) \
	  $(if $(filter no,$(PERSISTENT)),--no-persistent) $(if $(COMMANDS),--commands "$(COMMANDS)") \
	  --run-id fleet-$(or $(TOOL),nornir)-$$(date -u +%Y%m%dT%H%M%SZ)

fleet-sweep: .env ## Fleet jobs over devices x workers x profiles, the knee where the client's CPU sets the time (docs/fleet-jobs.md): make fleet-sweep TOOL=nornir CONNECTION=netmiko DEVICES=1,10,50 WORKERS=1,10,20 [PROFILES=regional,continental] [OPERATION=show] [SSH_TYPE=libssh] [PERSISTENT=no]
	$(COMPOSE) --profile tools build bench-runner
	$(COMPOSE) run --rm bench-runner fleet-sweep --tool $(or $(TOOL),nornir) \
	  --connection $(or $(CONNECTION),$(if $(filter ansible,$(TOOL)),network_cli,netmiko)) \
	  --operation $(or $(OPERATION),show) $(if $(DEVICES),--devices $(DEVICES)) $(if $(filter-out 0,$(WORKERS)),--workers $(WORKERS)) \
	  --profile $(or $(PROFILES),$(PROFILE),regional) $(if $(SSH_TYPE),--ssh-type $(SSH_TYPE)) \
	  $(if $(filter no,$(PERSISTENT)),--no-persistent) $(if $(COMMANDS),--commands "$(COMMANDS)") \
	  --sweep-id fleet-sweep-$(or $(TOOL),nornir)-$$(date -u +%Y%m%dT%H%M%SZ)

# TRANSPORT is load.mk's too (default all, which a hold has not): ssh unless one is named.
HOLD_TRANSPORT = $(or $(filter-out all,$(TRANSPORT)),ssh)
bench-hold: .env ## N connections of one transport held at once: setup, p50/p95 per operation, ops/s, memory per connection (docs/fleet-jobs.md): make bench-hold TRANSPORT=ssh [CONNECTIONS=1,10,100] [PROFILE=regional] [OPERATIONS=20 or SECONDS=s] [OPEN_CONCURRENCY=10]
	$(COMPOSE) --profile tools build bench-runner
	$(COMPOSE) run --rm bench-runner hold --transport $(HOLD_TRANSPORT) \
	  $(if $(CONNECTIONS),--connections $(CONNECTIONS)) --profile $(or $(PROFILE),regional) \
	  $(if $(OPERATIONS),--operations-per-connection $(OPERATIONS)) $(if $(SECONDS),--duration $(SECONDS)) \
	  $(if $(OPEN_CONCURRENCY),--open-concurrency $(OPEN_CONCURRENCY)) \
	  --run-id hold-$(HOLD_TRANSPORT)-$$(date -u +%Y%m%dT%H%M%SZ)

bench-impairment: .env ## Every transport's floor client under loss (regional 0-2 %, continental 0 and 1 %; ~2 h 40 min), then results/impairment-<time>/impairment.md [ITERATIONS=n] [MODES=...]
	$(COMPOSE) --profile tools build bench-runner
	run_id=impairment-$$(date -u +%Y%m%dT%H%M%SZ); status=0; \
	restore() { unset NETEM_ENGINE; $(COMPOSE) up -d --wait --force-recreate netem >/dev/null; }; \
	trap restore EXIT; \
	export NETEM_ENGINE=nfq; \
	$(COMPOSE) up -d --wait --force-recreate netem; \
	$(COMPOSE) run --rm bench-runner run --plan impairment --run-id $$run_id \
	  $(if $(ITERATIONS),--iterations $(ITERATIONS)) $(if $(MODES),--modes $(MODES)) || status=$$?; \
	$(COMPOSE) run --rm --no-deps bench-runner impairment-table $$run_id \
	  || { rc=$$?; [ $$status -ne 0 ] || status=$$rc; }; \
	echo "table: results/$$run_id/impairment.md"; exit $$status

fleet-inventory: .env ## Write results/fleet.yaml: the lab's emulated devices (DEVICE_FLEET_SIZE), for --targets
	$(COMPOSE) run --rm bench-runner inventory

bench-fleet: fleet-inventory ## Every emulated device under PROFILE, each RTT-verified: make bench-fleet PROFILE=regional [MODES=...]
	$(COMPOSE) run --rm bench-runner run --targets /results/fleet.yaml --profile $(PROFILE) \
	  $(if $(ITERATIONS),--iterations $(ITERATIONS)) $(if $(WARMUP),--warmup $(WARMUP)) $(if $(MODES),--modes $(MODES))

# Real devices (docs/real-devices.md): an inventory under results/, its credentials in the
# environment variables it names (exported in your shell; DEVICE_USERNAME/PASSWORD from .env).
bench-targets: .env ## Measure the devices of an inventory: make bench-targets TARGETS=results/routers.yaml [MODES=...]
	@test -f "$(TARGETS)" || { echo "TARGETS=$(TARGETS): no such file (an inventory under results/)"; exit 2; }
	@case "$(abspath $(TARGETS))" in $(CURDIR)/results/*) ;; \
	  *) echo "TARGETS must be under results/ (the runner's container sees only that directory)"; exit 2;; esac
	$(COMPOSE) run --rm $$(grep -oE '(username|password)_env: *[A-Za-z_][A-Za-z0-9_]*' "$(TARGETS)" \
	    | sed 's/.*: *//' | sort -u | sed 's/^/-e /') \
	  bench-runner run --targets /results/$(patsubst $(CURDIR)/results/%,%,$(abspath $(TARGETS))) \
	  $(if $(ITERATIONS),--iterations $(ITERATIONS)) $(if $(WARMUP),--warmup $(WARMUP)) $(if $(MODES),--modes $(MODES))

bench-smoke: .env ## Quick smoke plan: every mode and client at local, 3 iterations
	$(COMPOSE) run --rm bench-runner run --plan smoke

# A sink that is down never loses a point: an isolated lab (own project, like `make test`)
# whose InfluxDB is stopped while the fastest modes run at `local`; every point the run reports
# must be spooled and, after a replay, stored (bench-runner/tests/e2e/).
SPOOL_COMPOSE ?= $(COMPOSE) -p transport-lab-spool -f compose.yaml -f compose.test.yaml
SPOOL_NET ?= 198.18.102

test-sink-spool: build runner-test-image ## Stop InfluxDB, run, start it, replay: every reported point is stored
	LAB_TEST_NET=$(SPOOL_NET) SPOOL_COMPOSE="$(SPOOL_COMPOSE)" \
	  bench-runner/tests/e2e/spool_outage.sh

# A fault never produces a number: an isolated lab (own project) where the device restarts
# mid-mode and a second run meets a busy lab (bench-runner/tests/e2e/faults.sh).
FAULTS_COMPOSE ?= $(COMPOSE) -p transport-lab-faults -f compose.yaml -f compose.test.yaml
FAULTS_NET ?= 198.18.103

test-faults: build runner-test-image ## Restart the device mid-mode and start a second run on a busy lab: no number from either
	LAB_TEST_NET=$(FAULTS_NET) FAULTS_COMPOSE="$(FAULTS_COMPOSE)" \
	  bench-runner/tests/e2e/faults.sh

# Regression verdicts on the real lab: an isolated lab (own project) measures a short plan
# night after night, then with the device's commands delayed on purpose; only the delayed
# modes may be judged regressions, in results.json, InfluxDB, Prometheus and the summary
# (bench-runner/tests/e2e/verdicts.sh).
VERDICTS_COMPOSE ?= $(COMPOSE) -p transport-lab-verdicts -f compose.yaml -f compose.test.yaml
VERDICTS_NET ?= 198.18.105

test-verdicts: build runner-test-image ## Quiet nights, then a slower device: only the delayed modes regress
	LAB_TEST_NET=$(VERDICTS_NET) VERDICTS_COMPOSE="$(VERDICTS_COMPOSE)" \
	  bench-runner/tests/e2e/verdicts.sh

PRECISION_COMPOSE ?= $(COMPOSE) -p transport-lab-precision -f compose.yaml -f compose.test.yaml
PRECISION_NET ?= 198.18.109

test-precision: build runner-test-image ## Until precise: a quiet mode stops early, a jittered one runs to its cap and says so
	LAB_TEST_NET=$(PRECISION_NET) PRECISION_COMPOSE="$(PRECISION_COMPOSE)" \
	  bench-runner/tests/e2e/precision.sh

bench-verdicts: build ## The verdict gate on seeded synthetic nights: detection and false alarms (results/bench-verdicts/)
	$(COMPOSE) run --rm --no-deps --entrypoint python3 bench-runner \
	  -m bench_runner.verdicts.simulation --output /results/bench-verdicts
