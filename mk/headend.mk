# Head-end targets, included by the root Makefile (`make help` lists them).
##@ Head-end

HEADEND_IMAGE ?= transport-lab/headend:dev
# The whole repository, read-only, as for the device emulator (mk/device.mk).
HEADEND_GO_RO = docker run --rm -v "$(CURDIR):/src:ro" -w /src/headend -e GOFLAGS=-buildvcs=false -e CI \
	-v transport-lab-gomod:/go/pkg/mod -v transport-lab-gocache:/root/.cache/go-build $(GO_IMAGE)

.PHONY: lint-headend test-headend headend-image

# staticcheck's version is pinned once, by the tool directive in headend/go.mod.
lint-headend: ## gofmt -l (must list nothing), go vet and staticcheck on the head-end (in the Go image)
	$(HEADEND_GO_RO) sh -c 'set -e; unformatted=$$(gofmt -l .); \
	  if [ -n "$$unformatted" ]; then echo "gofmt -l: not formatted:"; echo "$$unformatted"; exit 1; fi; \
	  go vet ./...; go tool staticcheck ./...'

test-headend: ## Go tests of the head-end, race detector on (in the Go image; GO_TEST_FLAGS)
	$(HEADEND_GO_RO) go test $(GO_TEST_FLAGS) ./...

headend-image: ## Build the head-end image (HEADEND_IMAGE)
	docker build -q -f headend/Dockerfile -t $(HEADEND_IMAGE) . >/dev/null
