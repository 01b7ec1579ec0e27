"""Regression verdicts: each series of a run judged against the earlier nights of the same
plan, profile and target (docs/verdicts.md).

``config`` holds the defaults, ``gate`` the robust-z gate and ``changepoint`` the
E-divisive dating (both pure), ``history`` reads the earlier nights from the results
directory, ``judge`` puts them together for a run, and ``simulation`` measures the gate's
detection and false-alarm rates on synthetic nights (``make bench-verdicts``).
"""
