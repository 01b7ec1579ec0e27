# Dashboards as code (grafana/README.md), included by the root Makefile.
##@ Dashboards

DASHBOARDS_IMAGE ?= transport-lab/dashboards:dev

.PHONY: dashboards-image dashboards test-dashboards lint-dashboards

dashboards-image:
	docker build -q -f grafana/Dockerfile -t $(DASHBOARDS_IMAGE) . >/dev/null

dashboards: dashboards-image ## Regenerate grafana/dashboards/*.json from the code in grafana/src
	docker run --rm --user "$$(id -u):$$(id -g)" -v "$(CURDIR)/grafana/dashboards:/out" \
	  $(DASHBOARDS_IMAGE) write /out

test-dashboards: dashboards-image ## Dashboards: committed JSON equals the generated, lint (uids, datasources, queries, units)
	docker run --rm -v "$(CURDIR)/grafana:/grafana:ro" -e GRAFANA_DIR=/grafana \
	  --entrypoint python3 $(DASHBOARDS_IMAGE) -m pytest /opt/dashboards/tests/unit -p no:cacheprovider -q

lint-dashboards: dashboards-image ## ruff (lint, format) and mypy --strict on the dashboards' generator
	docker run --rm -v "$(CURDIR)/grafana:/grafana:ro" -w /grafana --entrypoint sh $(DASHBOARDS_IMAGE) -c \
	  'ruff check --no-cache src tests && ruff format --no-cache --check src tests && mypy --strict --cache-dir /tmp/mypy src/lab_dashboards'
