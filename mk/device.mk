# Device emulator targets, included by the root Makefile (`make help` lists them).
##@ Device emulator

DEVICE_TEST_IMAGE ?= transport-lab/device:dev
DEVICE_CLIENTS_IMAGE ?= transport-lab/device-clients:dev
# The device's base image; empty: emulator/Dockerfile's default (Debian 13). debian:bookworm-slim
# builds the Debian 12 device (docs/device.md). compose reads the same variable.
DEVICE_BASE ?=
# Lab networks live in 198.18.0.0/15; this one is private to the device tests.
DEVICE_TEST_NET ?= 198.18.110
DEVICE_BENCH_NET ?= 198.18.111
DEVICE10_PLATFORM ?= arista_eos
BENCH_SESSIONS ?= 500
BENCH_SECONDS ?= 10
BENCH_FLEET_SIZE ?= 100
BENCH_FLEET_SESSIONS ?= 1000
# An iteration count, not a duration: a duration can end while a worker is mid-input on a loaded
# machine, which Go reports as "context deadline exceeded" although nothing failed.
FUZZ_SHORT_TIME ?= 20000x
FUZZ_TIME ?= 2m
# package:FuzzTarget for every Go fuzz test of the emulator.
DEVICE_FUZZ_TARGETS := ./internal/engine:FuzzExecute ./internal/netconf/framing:FuzzDecoder \
	./internal/netconf/rpc:FuzzParseRPC ./internal/netconf/server:FuzzSession ./internal/restconf:FuzzDecodeJSON \
	./internal/restconf:FuzzYANGPatch ./internal/cryptoprofile:FuzzAssign ./internal/gnmi:FuzzPath ./internal/gnmi:FuzzSet \
	./internal/openconfig:FuzzDecodeJSON
DEVICE_GO_RUN = docker run --rm -v "$(CURDIR)/emulator:/src" -w /src \
	-v transport-lab-gomod:/go/pkg/mod -v transport-lab-gocache:/root/.cache/go-build $(GO_IMAGE)
# The whole repository, read-only: cmd/device's tests read the shipped transcripts at its root.
DEVICE_GO_RO = docker run --rm -v "$(CURDIR):/src:ro" -w /src/emulator -e GOFLAGS=-buildvcs=false -e CI \
	-v transport-lab-gomod:/go/pkg/mod -v transport-lab-gocache:/root/.cache/go-build $(GO_IMAGE)
# -race needs cgo, which the Go image has (gcc). GO_TEST_FLAGS="-race -count=20" hunts flakes.
GO_TEST_FLAGS ?= -race -count=1

.PHONY: lint-go test-go test-device fuzz-short fuzz bench-device bench-device-fleet device-images

# staticcheck's version is pinned once, by the tool directive in emulator/go.mod.
lint-go: ## gofmt -l (must list nothing), go vet and staticcheck on the device emulator (in the Go image)
	$(DEVICE_GO_RO) sh -c 'set -e; unformatted=$$(gofmt -l .); \
	  if [ -n "$$unformatted" ]; then echo "gofmt -l: not formatted:"; echo "$$unformatted"; exit 1; fi; \
	  go vet ./...; go tool staticcheck ./...'

test-go: ## Go tests of the device emulator, race detector on (in the Go image; GO_TEST_FLAGS)
	$(DEVICE_GO_RO) go test $(GO_TEST_FLAGS) ./...

device-images: ## Build the device image and the real-client test image
	docker build -q -f emulator/Dockerfile $(if $(DEVICE_BASE),--build-arg DEVICE_BASE=$(DEVICE_BASE)) \
	  -t $(DEVICE_TEST_IMAGE) . >/dev/null
	docker build -q -f tests/integration/device/Dockerfile -t $(DEVICE_CLIENTS_IMAGE) . >/dev/null

test-device: device-images netem-image ## Device integration tests with real clients and a fleet (own docker network, cleaned up)
	DEVICE_TEST_IMAGE=$(DEVICE_TEST_IMAGE) DEVICE_CLIENTS_IMAGE=$(DEVICE_CLIENTS_IMAGE) NETEM_IMAGE=$(NETEM_IMAGE) DEVICE_TEST_NET=$(DEVICE_TEST_NET) \
	  DEVICE10_PLATFORM=$(DEVICE10_PLATFORM) tests/integration/device/run.sh test $(PYTEST_ARGS)

bench-device: device-images ## Device load figures: SSH sessions held, SSH conn/s, HTTPS req/s, NETCONF RPC/s
	DEVICE_TEST_IMAGE=$(DEVICE_TEST_IMAGE) DEVICE_CLIENTS_IMAGE=$(DEVICE_CLIENTS_IMAGE) DEVICE_TEST_NET=$(DEVICE_BENCH_NET) \
	  BENCH_SESSIONS=$(BENCH_SESSIONS) BENCH_SECONDS=$(BENCH_SECONDS) tests/integration/device/run.sh bench

bench-device-fleet: device-images netem-image ## Fleet figures: idle cost per emulated device, 1000 SSH sessions held over 100 devices
	DEVICE_TEST_IMAGE=$(DEVICE_TEST_IMAGE) DEVICE_CLIENTS_IMAGE=$(DEVICE_CLIENTS_IMAGE) NETEM_IMAGE=$(NETEM_IMAGE) \
	  DEVICE_TEST_NET=$(DEVICE_BENCH_NET) FLEET_SIZE=$(BENCH_FLEET_SIZE) BENCH_SESSIONS=$(BENCH_FLEET_SESSIONS) \
	  BENCH_SECONDS=$(BENCH_SECONDS) tests/integration/device/run.sh fleet-bench

fuzz-short: ## Run every emulator fuzz target briefly (FUZZ_SHORT_TIME=20000x)
	$(DEVICE_GO_RUN) sh -c 'set -e; for t in $(DEVICE_FUZZ_TARGETS); do \
	  go test -run="^$$" -fuzz="^$${t#*:}$$" -fuzztime=$(FUZZ_SHORT_TIME) "$${t%%:*}"; done'

fuzz: ## Run every emulator fuzz target longer (FUZZ_TIME=2m)
	$(MAKE) fuzz-short FUZZ_SHORT_TIME=$(FUZZ_TIME)
