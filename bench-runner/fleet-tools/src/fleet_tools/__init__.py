"""Transport Lab's fleet tools: Nornir and Ansible run across the lab's fleet, driven by the
bench-runner as ``python -m fleet_tools`` (one JSON job on stdin, one JSON result on stdout;
protocol.py describes both)."""
