# netem sidecar: its images, tests, lint gates, engine benchmark and the device-restart check
# (see netem/README.md).
##@ WAN emulator (netem)

NETEM_IMAGE ?= transport-lab/netem:dev
# The runtime plus tests, test and lint tools, the test bed and the bench (netem/Dockerfile's `test`).
NETEM_TEST_IMAGE ?= transport-lab/netem-test:dev
NETEM_BENCH_ARGS ?=
# A throw-away VM whose kernel has sch_netem, for the tc engine on machines whose kernel lacks it.
NETEM_VM_RUN ?= $(abspath $(CURDIR)/../shared/netem-vm/run)
# uv for `make netem-lock`, pinned so the lock files are reproducible.
NETEM_UV_VERSION ?= 0.13.9
# Network namespaces and iptables inside a container, for the netns tests and the bench.
NETEM_NETNS_RUN = docker run --rm --cap-add NET_ADMIN --cap-add SYS_ADMIN \
  --security-opt seccomp=unconfined --security-opt apparmor=unconfined

.PHONY: netem-image netem-test-image netem-lock test-netem lint-netem test-netem-tc bench-netem \
  check-netem-restart

netem-image: ## netem's runtime image (what compose runs)
	docker build -q -t $(NETEM_IMAGE) netem

netem-test-image: ## netem's test image: the runtime plus tests, test/lint tools, test bed and bench
	docker build -q --target test -t $(NETEM_TEST_IMAGE) netem

# The build lock holds what pyproject.toml's [build-system] requires (setuptools), for the image's
# build without isolation.
netem-lock: ## Re-resolve netem's locked dependencies (requirements.lock, requirements-test.lock, requirements-build.lock)
	docker run --rm -u "$$(id -u):$$(id -g)" -e HOME=/tmp -v "$(CURDIR)/netem:/netem" -w /netem \
	  python:3.13-slim-trixie sh -euc ' \
	    pip install -q --no-cache-dir --target /tmp/uv uv==$(NETEM_UV_VERSION); \
	    /tmp/uv/bin/uv pip compile --quiet pyproject.toml --python-version 3.13 --generate-hashes \
	      -o requirements.lock; \
	    /tmp/uv/bin/uv pip compile --quiet pyproject.toml --python-version 3.13 --extra test \
	      -c requirements.lock --generate-hashes -o requirements-test.lock; \
	    requires=$$(python3 -c "import tomllib; \
	      print(*tomllib.load(open(\"pyproject.toml\", \"rb\"))[\"build-system\"][\"requires\"], sep=chr(10))"); \
	    printf "%s\n" "$$requires" | /tmp/uv/bin/uv pip compile --quiet - --python-version 3.13 \
	      --generate-hashes --custom-compile-command "make netem-lock" -o requirements-build.lock'

bench-netem: netem-test-image ## nfq engine: configured vs measured RTT per profile, throughput, CPU (~5 min) -> results/bench-netem/
	mkdir -p results/bench-netem
	$(NETEM_NETNS_RUN) --cap-add SYS_NICE -e LAB_COMMIT -v "$(CURDIR)/results/bench-netem:/results" \
	  --entrypoint python3 $(NETEM_TEST_IMAGE) bench/bench_engine.py --json-dir /results $(NETEM_BENCH_ARGS)

check-netem-restart: netem-image netem-test-image ## Restart a device-like container under the netem sidecar: the profile must come back (~15 s)
	python3 netem/tests/integration/device_restart/device_restart_check.py --image $(NETEM_IMAGE) \
	  --testbed-image $(NETEM_TEST_IMAGE)

# CI is passed on: under CI=true a netns test that cannot run fails instead of skipping.
test-netem: netem-test-image ## netem engine tests: command generation, and the nfq engine in network namespaces
	$(NETEM_NETNS_RUN) -e CI --entrypoint python3 $(NETEM_TEST_IMAGE) \
	  -m pytest tests -p no:cacheprovider -rfEs

lint-netem: netem-test-image ## netem's Python gates: ruff check, ruff format --check, mypy --strict
	docker run --rm --entrypoint sh $(NETEM_TEST_IMAGE) -euc \
	  'ruff check src bench tests; ruff format --check src bench tests; mypy --strict src bench'

# Locally a missing VM runner skips loudly; under CI=true it fails, so the tc engine is never
# passed untested.
test-netem-tc: ## netem's tc engine on a kernel with sch_netem (the netem VM from ../shared)
	@if [ -x "$(NETEM_VM_RUN)" ]; then NETEM_VM_RUN="$(NETEM_VM_RUN)" netem/tests/integration/tc_vm/run_tc_check.sh; \
	elif [ "$${CI:-}" = true ]; then \
	  echo "test-netem-tc: FAILED: CI=true and no netem VM runner at $(NETEM_VM_RUN)" >&2; exit 1; \
	else echo "test-netem-tc: *** SKIPPED *** no netem VM runner at $(NETEM_VM_RUN): the tc engine is NOT tested (CI=true fails here)"; fi
