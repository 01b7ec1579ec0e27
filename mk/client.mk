# Your own tools on the lab network (docs/own-tools.md), included by the
# root Makefile.
##@ Your own tools on the lab network
#   make client-shell                 an interactive shell; your directory at /work
#   make -s client-run CMD="..."      one command, no TTY, its output only: for scripts
# Both reuse the bench-runner service (its image, lab network and device variables) through
# `docker compose run`: nothing published, your uid, no capabilities (mk/client-entry.sh).

# Mounted read-write at /work: the directory you ran make from (with make -C too).
WORKDIR ?= $(or $(PWD),$(CURDIR))
CMD ?=
# An image of your own built FROM the runner image (e.g. with Ansible) instead of it.
CLIENT_IMAGE ?=
# Empty: your uid and gid, or 0 under rootless Docker (whose root is you on the host).
CLIENT_UID ?=
CLIENT_GID ?=

# --no-deps: a client never starts the lab (client-lab-check says when it is not up). The entry
# script starts as root holding only SETUID, SETGID and SETPCAP, enough to switch to your uid
# and empty the bounding set (compose run cannot drop the service's NET_RAW; the script does).
# The runner's InfluxDB password is blanked: a client has no business writing results.
CLIENT_RUN = workdir=$$(realpath "$(WORKDIR)"); uid="$(CLIENT_UID)"; gid="$(CLIENT_GID)"; \
	if [ -z "$$uid" ]; then \
	  if docker info --format '{{.SecurityOptions}}' 2>/dev/null | grep -q rootless; \
	  then uid=0 gid=0; else uid=$$(id -u) gid=$$(id -g); fi; fi; \
	$(if $(CLIENT_IMAGE),RUNNER_IMAGE=$(CLIENT_IMAGE)) $(COMPOSE) run --rm --no-deps \
	  --cap-drop ALL --cap-add SETUID --cap-add SETGID --cap-add SETPCAP \
	  -v "$$workdir:/work" -v "$(CURDIR)/mk/client-entry.sh:/usr/local/bin/lab-client:ro" \
	  -e CLIENT_UID="$$uid" -e CLIENT_GID="$${gid:-$$uid}" -e CLIENT_WORKDIR="$$workdir" \
	  -e CLIENT_CMD -e DEVICE_NETCONF_PORT=830 -e INFLUX_PASSWORD= \
	  --entrypoint /usr/local/bin/lab-client

.PHONY: client-shell client-run client-lab-check

client-lab-check: .env
	@test -d "$(WORKDIR)" || { echo "WORKDIR=$(WORKDIR) is not a directory" >&2; exit 1; }
	@$(if $(CLIENT_IMAGE),docker image inspect $(CLIENT_IMAGE) >/dev/null 2>&1 || { \
	  echo "CLIENT_IMAGE=$(CLIENT_IMAGE) does not exist: build it FROM the runner image" >&2; \
	  exit 1; },true)
	@running=$$($(COMPOSE) ps --status running --services 2>/dev/null); \
	for s in device netem; do grep -qx "$$s" <<<"$$running" || { \
	  echo "the lab's $$s is not running (docker compose ps): start the lab with make up" >&2; \
	  exit 1; }; done

client-shell: export CLIENT_CMD :=
client-shell: client-lab-check ## Shell on the lab network with the lab's clients; WORKDIR (default: here) at /work
	@$(CLIENT_RUN) bench-runner

client-run: export CLIENT_CMD = $(value CMD)
client-run: client-lab-check ## One command on the lab network, no TTY: make -s client-run CMD="python3 my.py"
	@test -n "$$CLIENT_CMD" || { echo 'usage: make -s client-run CMD="..." [WORKDIR=dir]' >&2; exit 2; }
	@$(CLIENT_RUN) -T bench-runner
