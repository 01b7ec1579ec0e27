#!/usr/bin/env bash
# Runs tc_check.py in the netem VM (a kernel with sch_netem), sharing netem/ into it: the engines
# from src/ and the test bed from bench/ (stdlib only; the VM has no pip packages).
# usage: netem/tests/integration/tc_vm/run_tc_check.sh   (override the VM runner with NETEM_VM_RUN)
set -euo pipefail
netem_dir="$(cd "$(dirname "$0")/../../.." && pwd)"
vm_run="${NETEM_VM_RUN:-$netem_dir/../../shared/netem-vm/run}"
exec "$vm_run" -t 600 "$netem_dir" 'PYTHONPATH=src:bench python3 tests/integration/tc_vm/tc_check.py'
