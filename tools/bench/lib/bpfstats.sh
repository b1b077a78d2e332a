# shellcheck shell=bash
# kernel.bpf_stats_enabled: on only while the harness measures kernel-side
# cost, and always put back as it was (the EXIT trap calls bpfstats_restore).
# Sourced, not executed.

bpfstats_prev=$(sysctl -n kernel.bpf_stats_enabled)
bpfstats_changed=0

bpfstats_on() {
  if [[ $(sysctl -n kernel.bpf_stats_enabled) != 1 ]]; then
    sysctl -q -w kernel.bpf_stats_enabled=1
    bpfstats_changed=1
  fi
}

# Puts back the value found at start, if the harness changed it.
bpfstats_restore() {
  if ((bpfstats_changed)); then
    sysctl -q -w kernel.bpf_stats_enabled="$bpfstats_prev"
    bpfstats_changed=0
  fi
}

# True when stats are on now (someone may have turned them off meanwhile).
bpfstats_is_on() { [[ $(sysctl -n kernel.bpf_stats_enabled) == 1 ]]; }
