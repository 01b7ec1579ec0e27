"""Where results go besides results.json: InfluxDB and the Prometheus Pushgateway."""
