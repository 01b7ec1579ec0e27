"""Locust monkey-patches the standard library at import (gevent); in its own process that
happens first, so here too, before any test module imports ssl through requests."""

import locust  # noqa: F401
