"""Impairment engines. Stdlib only: these modules also run in the netem VM, which has no pip packages."""
