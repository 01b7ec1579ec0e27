# Alertmanager (docs/alerts.md), included by the root Makefile.
##@ Alerts

.PHONY: lint-alertmanager test-alertmanager

# The image compose selects for the service (.env's stand-in where `make standins` wrote one).
ALERTMANAGER_RUN_IMAGE = $$($(COMPOSE) config --images alertmanager)
# Every receiver .env can configure, with placeholder values (nothing is sent: only checked).
ALERT_RECEIVERS_ALL := -e ALERT_WEBHOOK_URL=http://receiver.invalid/ \
	-e ALERT_SLACK_WEBHOOK_URL=https://slack.invalid/services/T/B/C \
	-e ALERT_EMAIL_TO=lab@example.invalid -e ALERT_EMAIL_FROM=alertmanager@example.invalid \
	-e ALERT_SMTP_SMARTHOST=smtp.example.invalid:587 -e ALERT_SMTP_USERNAME=lab \
	-e ALERT_SMTP_PASSWORD=secret

lint-alertmanager: .env runner-test-image ## amtool check-config on the configuration .env makes, with no receiver and with every one; ruff and mypy on its tests
	for receivers in "-e ALERT_WEBHOOK_URL=" "$(ALERT_RECEIVERS_ALL)"; do \
	  docker run --rm --network none --read-only --tmpfs /tmp $$receivers \
	    -v "$(CURDIR)/alertmanager:/etc/alertmanager:ro" --entrypoint /bin/sh $(ALERTMANAGER_RUN_IMAGE) \
	    /etc/alertmanager/render.sh amtool check-config /tmp/alertmanager/alertmanager.yml; done
	docker run --rm -v "$(CURDIR)/alertmanager/tests:/am-tests:ro" -e MYPYPATH=/app/tests -w /app \
	  --entrypoint sh $(RUNNER_TEST_IMAGE) -c \
	  'ruff check --no-cache --config pyproject.toml /am-tests \
	   && ruff format --no-cache --check --config pyproject.toml /am-tests \
	   && mypy --strict --cache-dir /tmp/mypy /am-tests'

# Alertmanager alone with the lab's routing, on a loopback of its own (--network none); the
# tests post alerts to it and count what the receiver beside them gets.
test-alertmanager: .env runner-test-image ## Alertmanager's routing: thirty regressions of a night are one notification; inhibition; holds
	name=transport-lab-alert-routing-$$$$; \
	docker run -d --rm --name $$name --network none --read-only --tmpfs /tmp \
	  -e ALERT_WEBHOOK_URL=http://127.0.0.1:8080/ -e ALERT_GROUP_WAIT=1s -e ALERT_GROUP_INTERVAL=1s \
	  -v "$(CURDIR)/alertmanager:/etc/alertmanager:ro" --entrypoint /bin/sh $(ALERTMANAGER_RUN_IMAGE) \
	  /etc/alertmanager/render.sh /bin/alertmanager --config.file=/tmp/alertmanager/alertmanager.yml \
	  --storage.path=/tmp --cluster.listen-address= >/dev/null; \
	status=0; docker run --rm --network container:$$name -e CI -e PYTHONPATH=/app/tests \
	  -v "$(CURDIR)/alertmanager/tests:/am-tests:ro" \
	  -v "$(CURDIR)/tests/e2e/alert_receiver.py:/e2e/alert_receiver.py:ro" \
	  --entrypoint python3 $(RUNNER_TEST_IMAGE) -m pytest /am-tests -p no:cacheprovider -v || status=$$?; \
	[ $$status -eq 0 ] || docker logs --tail 40 $$name; \
	docker rm -f $$name >/dev/null; exit $$status
