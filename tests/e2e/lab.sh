# Sourced by the end-to-end scenario scripts (bench-runner/tests/e2e/*.sh, load/tests/e2e/).
# A scenario runs on a lab of its own (`make test-faults`: its project, torn down at the end),
# or with LAB_SHARED=1 on the one test lab `make test-e2e` starts once for all of them: then
# the lab stays up and the scenario puts back what it changed, for the next one.

# end_lab COMPOSE [ARGS...]: at a scenario's end, tear its own lab down; on the shared lab,
# run `COMPOSE ARGS` instead (what puts back the services the scenario changed), if any.
end_lab() {
  local compose=$1
  shift
  if [ -z "${LAB_SHARED:-}" ]; then
    $compose --profile tools --profile nightly --profile load down -v --remove-orphans \
      >/dev/null 2>&1 || true
  elif [ $# -gt 0 ]; then
    $compose "$@" >/dev/null 2>&1 || echo "shared lab: '$*' failed: the next scenario may see this one's changes"
  fi
}
