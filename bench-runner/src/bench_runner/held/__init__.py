"""Held connections (``bench-runner hold``, docs/fleet-jobs.md): N connections of one
transport opened and held at once, each carrying its own sequential operations; per step the
setup time, the operations' latency and rate, and the memory each connection costs the client
and the device. Pure parts (plan, summary, limits) beside the I/O (transports, hold, run)."""
