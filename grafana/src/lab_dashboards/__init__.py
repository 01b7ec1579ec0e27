"""Transport Lab's Grafana dashboards, as code (Grafana Foundation SDK)."""
