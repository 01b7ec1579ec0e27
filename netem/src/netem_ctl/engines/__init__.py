"""Impairment engines. Stdlib only: they also run in the netem VM, which has no pip packages."""
