# The documentation's check (README.md, CONTRIBUTING.md, docs/), included by the root Makefile.
##@ Documentation

# The check is standard-library Python: any Python 3.13 image runs it, the repository read-only,
# so nothing is needed on the host but Docker.
DOCS_PYTHON_IMAGE ?= python:3.13-slim-trixie

.PHONY: test-docs

test-docs: ## Docs name only real make targets, variables, services, ports, paths; links resolve; README ≤ 260 lines
	docker run --rm -v "$(CURDIR):/src:ro" -w /src $(DOCS_PYTHON_IMAGE) \
	  python3 -B tests/unit/docs/check_docs.py
