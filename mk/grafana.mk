# Dashboards as code (grafana/README.md), included by the root Makefile.
#   make dashboards        regenerate grafana/dashboards/*.json from grafana/src
#   make test-dashboards   the generator's tests: committed JSON == generated, lint

DASHBOARDS_IMAGE ?= transport-lab/dashboards:dev

.PHONY: dashboards-image dashboards test-dashboards

dashboards-image:
	docker build -q -f grafana/Dockerfile -t $(DASHBOARDS_IMAGE) . >/dev/null

dashboards: dashboards-image ## Regenerate grafana/dashboards/*.json from the code in grafana/src
	docker run --rm --user "$$(id -u):$$(id -g)" -v "$(CURDIR)/grafana/dashboards:/out" \
	  $(DASHBOARDS_IMAGE) write /out

test-dashboards: dashboards-image ## Dashboards: committed JSON equals the generated, lint (uids, datasources, queries, units)
	docker run --rm -v "$(CURDIR)/grafana:/grafana:ro" -e GRAFANA_DIR=/grafana \
	  --entrypoint python3 $(DASHBOARDS_IMAGE) -m pytest /opt/dashboards/tests -p no:cacheprovider -q
