# netem sidecar: engine benchmark and the device-restart check (see netem/README.md).
NETEM_IMAGE ?= transport-lab/netem:dev
NETEM_BENCH_ARGS ?=
# A throw-away VM whose kernel has sch_netem, for the tc engine on machines whose kernel lacks it.
NETEM_VM_RUN ?= $(abspath $(CURDIR)/../shared/netem-vm/run)

.PHONY: netem-image test-netem test-netem-tc bench-netem check-netem-restart

netem-image:
	docker build -q -t $(NETEM_IMAGE) netem

bench-netem: netem-image ## nfq engine: configured vs measured RTT per profile, throughput, CPU (~5 min) -> results/bench-netem/
	mkdir -p results/bench-netem
	docker run --rm --cap-add NET_ADMIN --cap-add SYS_ADMIN --cap-add SYS_NICE --security-opt seccomp=unconfined \
	  --security-opt apparmor=unconfined -e LAB_COMMIT -v "$(CURDIR)/results/bench-netem:/results" \
	  --entrypoint python3 $(NETEM_IMAGE) /opt/netem/bench_engine.py --json-dir /results $(NETEM_BENCH_ARGS)

check-netem-restart: netem-image ## Restart a device-like container under the netem sidecar: the profile must come back (~15 s)
	python3 netem/tests/docker/device_restart_check.py --image $(NETEM_IMAGE)

test-netem: build ## netem engine tests: command generation, and the nfq engine in network namespaces
	docker run --rm --cap-add NET_ADMIN --cap-add SYS_ADMIN --security-opt seccomp=unconfined \
	  --security-opt apparmor=unconfined --entrypoint python3 $${NETEM_IMAGE:-transport-lab/netem:dev} \
	  -m pytest /opt/netem/tests -p no:cacheprovider -rs

test-netem-tc: ## netem's tc engine on a kernel with sch_netem (the netem VM from ../shared, when present)
	@if [ -x "$(NETEM_VM_RUN)" ]; then NETEM_VM_RUN="$(NETEM_VM_RUN)" netem/tests/vm/run_tc_check.sh; \
	else echo "test-netem-tc: SKIPPED: no netem VM runner at $(NETEM_VM_RUN); on a netem kernel test-netem runs the tc tests"; fi
