# The fleet tools (bench-runner/fleet-tools: Nornir and Ansible across the fleet, in their own
# environment /opt/fleet-tools of the runner's image). Included by the root Makefile.
##@ Fleet tools (bench-runner/fleet-tools)
FLEET_TOOLS_PYTHON := /opt/fleet-tools/bin/python

.PHONY: lint-fleet-tools test-fleet-tools

# ruff and mypy are the runner test image's (its main environment); mypy reads the fleet
# tools' libraries from their environment (--python-executable).
lint-fleet-tools: runner-test-image ## ruff (lint, format) and mypy --strict on the fleet tools (in the runner's test image)
	docker run --rm -w /app/fleet-tools --entrypoint sh $(RUNNER_TEST_IMAGE) -c \
	  'ruff check --config pyproject.toml src tests \
	   && ruff format --check --config pyproject.toml src tests \
	   && mypy --strict --config-file pyproject.toml --python-executable $(FLEET_TOOLS_PYTHON) \
	        src/fleet_tools'

test-fleet-tools: runner-test-image ## The fleet tools' unit tests, in their environment (in the runner's test image)
	docker run --rm -e CI -w /app/fleet-tools --entrypoint $(FLEET_TOOLS_PYTHON) $(RUNNER_TEST_IMAGE) \
	  -m pytest tests -p no:cacheprovider
