"""Transport Lab load tests: Locust users per transport (runs on gevent, in its own image)."""
