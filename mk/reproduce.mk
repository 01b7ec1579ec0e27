# Published benchmarks rerun on the lab (included by the root Makefile; docs/reproductions.md "Published
# benchmarks, reproduced"): each experiment's built-in plan through the bench-runner compose
# service, then the comparison tables beside the published figures.
##@ Reproductions
# Which experiments `make reproduce` runs (each runs plan reproduce-<name>; parallel-ssh is a
# Locust sweep, below). clibench-headend measures through the remote site's head-end (its
# relayed jobs write <run-id>-<profile>-relayed beside the direct ones; docs/relays.md), which
# the bench-runner service waits for like the device.
REPRODUCE ?= clibench,ssh-libraries,netconf,tunnel,parallel-ssh,clibench-headend
# ssh-libraries connects to up to this many devices of the lab's fleet (docs/fleet.md).
REPRODUCE_FLEET_MIN := 10
comma := ,

# Experiment 5, parallel-ssh's "paramiko vs libssh2" under gevent (published/parallel-ssh.yaml):
# paramiko and parallel-ssh's native client, a new session per operation and a command on a
# kept one, 26 KiB replies, 1..200 users in 30 s steps (about 8 minutes), one Locust process
# as the post's one gevent process; at the lab's profile (local unless set otherwise).
REPRODUCE_PSSH_SWEEP := --transport ssh-fresh,ssh-fresh-libssh2,ssh-reuse,ssh-reuse-libssh2 \
  --steps 1,50,100,200 --step-seconds 30 --spawn-rate 50 --command "show payload 26624" \
  --plan reproduce-parallel-ssh

.PHONY: reproduce

# The plans and published figures are packaged in the runner's image: build it first. Every
# experiment runs even when one fails (a failed mode is still a table row: not measured);
# the tables are written from whatever ran, and the exit status is the first failure's.
# ssh-libraries needs a fleet of at least $(REPRODUCE_FLEET_MIN) devices: DEVICE_FLEET_SIZE (the
# environment's, else .env's, as compose reads it) is checked before anything runs, and the
# mode itself fails with the same reason if the running device presents fewer.
reproduce: .env ## Rerun the published benchmarks (REPRODUCE=clibench,ssh-libraries,netconf,tunnel,parallel-ssh,clibench-headend; ssh-libraries needs DEVICE_FLEET_SIZE>=10), write results/reproduce-<time>/comparison.md
	@if [[ ",$(REPRODUCE)," == *,ssh-libraries,* ]]; then \
	  size=$${DEVICE_FLEET_SIZE:-$$(sed -n 's/^DEVICE_FLEET_SIZE=//p' .env | tail -n 1)}; \
	  if [ "$${size:-1}" -lt $(REPRODUCE_FLEET_MIN) ] 2>/dev/null || ! [ "$${size:-1}" -eq "$${size:-1}" ] 2>/dev/null; then \
	    echo "reproduce: ssh-libraries connects to up to $(REPRODUCE_FLEET_MIN) emulated devices;" \
	      "DEVICE_FLEET_SIZE is $${size:-1}. Set DEVICE_FLEET_SIZE=$(REPRODUCE_FLEET_MIN) (or more) in .env and" \
	      "make up (docs/fleet.md), or leave it out: REPRODUCE=clibench,netconf,tunnel,clibench-headend" >&2; \
	    exit 2; \
	  fi; \
	fi
	$(COMPOSE) --profile tools build bench-runner
	$(if $(filter parallel-ssh,$(subst $(comma), ,$(REPRODUCE))),$(COMPOSE) --profile load build load-master)
	stamp=reproduce-$$(date -u +%Y%m%dT%H%M%SZ); status=0; \
	for experiment in $$(tr ',' ' ' <<<"$(REPRODUCE)"); do \
	  if [ "$$experiment" = parallel-ssh ]; then \
	    $(COMPOSE) --profile load run --rm load-master sweep $(REPRODUCE_PSSH_SWEEP) \
	      --run-id $$stamp-$$experiment || { rc=$$?; [ $$status -ne 0 ] || status=$$rc; }; \
	    continue; \
	  fi; \
	  $(COMPOSE) run --rm bench-runner run --plan reproduce-$$experiment \
	    --run-id $$stamp-$$experiment || { rc=$$?; [ $$status -ne 0 ] || status=$$rc; }; \
	done; \
	$(COMPOSE) run --rm bench-runner reproduce-tables $$stamp \
	  || { rc=$$?; [ $$status -ne 0 ] || status=$$rc; }; \
	echo "comparison: results/$$stamp/comparison.md"; exit $$status
