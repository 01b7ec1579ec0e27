# HTML reports, comparisons and Grafana screenshots (included by the root Makefile).
##@ Reports

# make report: RUN=<run id or prefix> (its sweep comes along), or LAST=n (the n latest runs in
# one report; default the latest); BASELINE=<mode> re-bases the speedup table.
RUN ?=
LAST ?=
BASELINE ?=
REPORT_TEST_IMAGE ?= transport-lab/bench-runner-report-test:dev

.PHONY: report compare screenshots report-test-image test-report

report: .env ## One-file HTML report with charts (PNG, SVG) under results/<run>/report/: make report [RUN=id | LAST=n] [BASELINE=mode]
	$(COMPOSE) run --rm --no-deps bench-runner report-html $(RUN) $(if $(LAST),--last $(LAST)) \
	  $(if $(BASELINE),--baseline $(BASELINE))

compare: .env ## Two runs side by side, what changed and how sure: make compare A=<run> B=<run>
	@test -n "$(A)" -a -n "$(B)" || { echo "usage: make compare A=<run id> B=<run id>"; exit 2; }
	$(COMPOSE) run --rm --no-deps bench-runner compare $(A) $(B)

# Unverified here (no Grafana image on the development machine): docs/reports.md.
screenshots: .env ## One PNG per Grafana panel through the image renderer (results/screenshots/<time>/)
	$(COMPOSE) --profile reports up -d --wait grafana grafana-renderer
	set -a; source .env; set +a; \
	$(COMPOSE) run --rm --no-deps -e GRAFANA_ADMIN_PASSWORD --entrypoint python3 bench-runner \
	  -m bench_runner.html_report.screenshots

report-test-image: .env
	RUNNER_TEST_TARGET=report-test RUNNER_TEST_IMAGE=$(REPORT_TEST_IMAGE) \
	  $(TEST_COMPOSE) --profile tools build bench-runner

# The report of a real run in a real browser: an isolated lab (own project) measures a short
# sweep, makes its report and a comparison, and chromium opens them
# (bench-runner/tests/e2e/report.sh). Artifacts: results/test-report/.
REPORT_COMPOSE ?= $(COMPOSE) -p transport-lab-report -f compose.yaml -f compose.test.yaml
REPORT_NET ?= 198.18.107

test-report: build report-test-image ## A real run's HTML report in headless chromium: charts drawn, figures = results.json
	LAB_TEST_NET=$(REPORT_NET) RUNNER_TEST_IMAGE=$(REPORT_TEST_IMAGE) \
	  REPORT_COMPOSE="$(REPORT_COMPOSE)" REPORT_ARTIFACTS="$(CURDIR)/results/test-report" \
	  bench-runner/tests/e2e/report.sh
