# shellcheck shell=bash
# Free page reporting (virtio-balloon on a VM): the guest hands free memory
# back to the host in 2^page_reporting_order-page blocks, and the next
# write to such a page faults in the hypervisor.  A tracer writing
# hundreds of MB per run into tmpfs then pays 2-6x more system time, by
# how long the memory it gets has been free (BENCHMARKS.md, "What was
# tried").  The harness holds reporting off for the series (an order above
# the largest block, so no block qualifies) and puts the value back after.
# Sourced, not executed.

pagereport_param=/sys/module/page_reporting/parameters/page_reporting_order
pagereport_prev=
pagereport_state="no free page reporting on this machine"

# pagereport_hold KEEP: unless KEEP is 1, holds reporting off if it is on.
pagereport_hold() {
  [[ -w $pagereport_param ]] || return 0
  local order
  order=$(<"$pagereport_param")
  if [[ $1 == 1 ]]; then
    pagereport_state="free page reporting left on (order $order, --keep-page-reporting)"
    return 0
  fi
  if echo 11 >"$pagereport_param" 2>/dev/null; then
    pagereport_prev=$order
    pagereport_state="free page reporting held off for the series (page_reporting_order $order -> 11, restored after)"
  else
    pagereport_state="free page reporting on (order $order): could not hold it off"
  fi
}

pagereport_restore() {
  if [[ -n $pagereport_prev ]]; then
    echo "$pagereport_prev" >"$pagereport_param" 2>/dev/null || true
    pagereport_prev=
  fi
}
