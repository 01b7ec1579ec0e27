"""The provisioned datasources (grafana/provisioning/datasources), by their fixed uids."""

from grafana_foundation_sdk.models.common import DataSourceRef

INFLUXDB = DataSourceRef(type_val="influxdb", uid="influxdb-transport")
PROMETHEUS = DataSourceRef(type_val="prometheus", uid="prometheus-transport")
