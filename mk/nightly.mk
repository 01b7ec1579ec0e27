# Scheduled runs (docs/nightly.md), included by the root Makefile.
##@ Nightly

# What a run's manifest records of the lab's images and engine: read on the host, since no
# container gets the Docker socket to ask.
NIGHTLY_LAB_INFO = export LAB_ENGINE="docker $$(docker version --format '{{.Server.Version}}' 2>/dev/null)"; \
	LAB_IMAGES=$$($(1) --profile nightly config --images | sort -u | while read -r image; do \
	  printf '%s@%s ' "$$image" "$$(docker image inspect --format '{{.Id}}' "$$image" 2>/dev/null | cut -c8-19)"; \
	done); export LAB_IMAGES="$${LAB_IMAGES% }"

# An isolated lab (own project, subnet and volumes, like `make test`) where the scheduler runs
# a small plan every minute (bench-runner/tests/e2e/nightly.sh).
NIGHTLY_TEST_COMPOSE ?= $(COMPOSE) -p transport-lab-nightly -f compose.yaml -f compose.test.yaml
NIGHTLY_TEST_NET ?= 198.18.106

.PHONY: scheduler-image nightly-up nightly-down nightly test-nightly

scheduler-image: .env
	$(COMPOSE) --profile nightly build scheduler

nightly-up: build scheduler-image ## Start the lab with the scheduler: a run on NIGHTLY_SCHEDULE (.env), in the background
	@$(call NIGHTLY_LAB_INFO,$(COMPOSE)); \
	$(COMPOSE) --profile nightly up -d --wait $(SERVICES) scheduler
	@$(COMPOSE) --profile nightly exec -T scheduler cat /tmp/nightly.crontab | grep -v '^#'

nightly-down: ## Stop the scheduler (the lab keeps running)
	$(COMPOSE) --profile nightly stop scheduler

nightly: build scheduler-image ## One nightly run now, in the foreground (for host cron or a systemd timer); exit 5 while another runs
	@$(call NIGHTLY_LAB_INFO,$(COMPOSE)); \
	$(COMPOSE) --profile nightly run --rm -T --entrypoint bench-runner scheduler nightly

test-nightly: build runner-test-image scheduler-image ## The scheduler on a one-minute schedule: two runs, never overlapping, in every sink (~4 min)
	@$(call NIGHTLY_LAB_INFO,$(NIGHTLY_TEST_COMPOSE)); \
	LAB_TEST_NET=$(NIGHTLY_TEST_NET) NIGHTLY_COMPOSE="$(NIGHTLY_TEST_COMPOSE)" \
	  bench-runner/tests/e2e/nightly.sh
