"""Fleet jobs (docs/fleet-jobs.md): Nornir and Ansible run across the lab's fleet as operators
run them, one job per step (a tool, its connection, devices, workers, a profile), timed as a
whole and per device, beside the model ``wall = ceil(devices / workers) x per-device time``.

The tools run in an environment of their own (``/opt/fleet-tools``, bench-runner/fleet-tools):
``tools.py`` drives it; ``job.py`` says what a step is; ``summary.py`` makes its figures;
``results.py`` is the document a step writes; ``run.py`` puts them together on the lab.
"""
