# netem sidecar: engine benchmark and the device-restart check (see netem/README.md).
NETEM_IMAGE ?= transport-lab/netem:dev
NETEM_BENCH_ARGS ?=

.PHONY: netem-image bench-netem check-netem-restart

netem-image:
	docker build -q -t $(NETEM_IMAGE) netem

bench-netem: netem-image ## nfq engine: configured vs measured RTT per profile, throughput, CPU (~5 min) -> results/bench-netem/
	mkdir -p results/bench-netem
	docker run --rm --cap-add NET_ADMIN --cap-add SYS_ADMIN --cap-add SYS_NICE --security-opt seccomp=unconfined \
	  --security-opt apparmor=unconfined -e LAB_COMMIT -v "$(CURDIR)/results/bench-netem:/results" \
	  --entrypoint python3 $(NETEM_IMAGE) /opt/netem/bench_engine.py --json-dir /results $(NETEM_BENCH_ARGS)

check-netem-restart: netem-image ## Restart a device-like container under the netem sidecar: the profile must come back (~15 s)
	python3 netem/tests/docker/device_restart_check.py --image $(NETEM_IMAGE)
