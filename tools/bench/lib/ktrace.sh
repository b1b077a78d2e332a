# shellcheck shell=bash
# The kernel's own record of the exactness pass: the block_rq_complete
# trace event (tracefs), filtered to the benchmark disk, logs every
# completion the tracepoint fires for, with the task it ran on.  Matched
# against biosnoop's events it tells a completion biosnoop lost apart from
# one no BPF program was run for: on some kernels a tracepoint that fires
# while a given task is current runs its trace-event handler but not its
# BPF programs (BENCHMARKS.md, "Exactness").  Everything changed here is
# put back by ktrace_stop, or by ktrace_restore from the EXIT trap,
# tracefs unmounted again if it was mounted here.
# Sourced, not executed.

ktrace_dir=/sys/kernel/tracing
ktrace_event=$ktrace_dir/events/block/block_rq_complete
ktrace_active=0
ktrace_mounted=0 # tracefs was mounted here: unmounted again at the end
ktrace_prev_kb=
ktrace_prev_on=
ktrace_why=

# ktrace_start DEVNAME N: starts tracing DEVNAME's completions, the buffer
# sized for N of them.  Fails (ktrace_why says why) when tracefs or the
# event is not there, or the buffer cannot be had.
ktrace_start() {
  local devname=$1 n=$2 majmin kdev kb
  if [[ ! -d $ktrace_event ]] && mount -t tracefs nodev "$ktrace_dir" 2>/dev/null; then
    ktrace_mounted=1
  fi
  if [[ ! -w $ktrace_event/enable ]]; then
    ktrace_why="no tracefs block_rq_complete event"
    ktrace_restore
    return 1
  fi
  if [[ $(<"$ktrace_event/enable") != 0 ]]; then
    ktrace_why="the block_rq_complete trace event is already in use"
    ktrace_restore
    return 1
  fi
  majmin=$(<"/sys/block/$devname/dev")
  # The event's dev field is the kernel's dev_t: major << 20 | minor.
  kdev=$(((${majmin%%:*} << 20) | ${majmin##*:}))
  ktrace_prev_kb=$(<"$ktrace_dir/buffer_size_kb")
  ktrace_prev_kb=${ktrace_prev_kb%% *} # "7 (expanded: 1408)" before first use
  ktrace_prev_on=$(<"$ktrace_dir/tracing_on")
  ktrace_active=1
  # About 60 bytes per record; all of them may land on one CPU.
  kb=$((n * 96 / 1024 + 1024))
  if ! echo "$kb" >"$ktrace_dir/buffer_size_kb" 2>/dev/null; then
    ktrace_why="could not size the trace buffer to $kb KiB per CPU"
    ktrace_restore
    return 1
  fi
  echo 0 >"$ktrace_dir/tracing_on"
  : >"$ktrace_dir/trace"
  echo "dev == $kdev" >"$ktrace_event/filter"
  echo 1 >"$ktrace_event/enable"
  echo 1 >"$ktrace_dir/tracing_on"
}

# ktrace_stop OUT: stops tracing and writes one line per completion,
# "SECTOR TASK-TID", in the trace's order.  Fails when the buffer overran
# (OUT is then incomplete).
ktrace_stop() {
  local out=$1 overrun
  echo 0 >"$ktrace_dir/tracing_on"
  overrun=$(cat "$ktrace_dir"/per_cpu/cpu*/stats 2>/dev/null |
    awk '/^overrun:/ { s += $2 } END { print s + 0 }')
  # "  task-tid  [cpu] flags  time: block_rq_complete: 7,0 R () SECTOR + 8 ..."
  sed -n 's/^ *\([^[]*[^[ ]\) *\[[0-9]*\] .* block_rq_complete: .* () \([0-9][0-9]*\) + .*/\2 \1/p' \
    "$ktrace_dir/trace" >"$out"
  ktrace_restore
  if ((overrun > 0)); then
    ktrace_why="the trace buffer overran ($overrun records lost)"
    return 1
  fi
}

ktrace_restore() {
  if ((ktrace_active)); then
    echo 0 >"$ktrace_event/enable" 2>/dev/null
    echo 0 >"$ktrace_event/filter" 2>/dev/null
    : >"$ktrace_dir/trace" 2>/dev/null
    [[ -n $ktrace_prev_kb ]] && echo "$ktrace_prev_kb" >"$ktrace_dir/buffer_size_kb" 2>/dev/null
    [[ -n $ktrace_prev_on ]] && echo "$ktrace_prev_on" >"$ktrace_dir/tracing_on" 2>/dev/null
    ktrace_active=0
  fi
  if ((ktrace_mounted)); then
    umount "$ktrace_dir" 2>/dev/null || true
    ktrace_mounted=0
  fi
  return 0
}

# ktrace_unseen TRACE EVENT_SECTORS: the completions in TRACE (from
# ktrace_stop) that have no event in EVENT_SECTORS (one sector per line, in
# output order).  A sector read twice (two passes over the disk) is
# matched to the event nearest in order.  Prints the count, then one
# "COUNT TASK-TID (tgid TGID)" line per task they ran on.
ktrace_unseen() {
  awk -v window=100000 '
    NR == FNR { n[$1]++; at[$1, n[$1]] = FNR; next }
    {
      s = $1; seen = 0
      for (k = 1; k <= n[s]; k++) {
        d = at[s, k] - FNR
        if (!((s, k) in used) && d < window && -d < window) {
          used[s, k] = 1; seen = 1; break
        }
      }
      if (!seen) { unseen++; task[substr($0, length($1) + 2)]++ }
    }
    END {
      print unseen + 0
      for (t in task) print task[t], t
    }' "$2" "$1" | {
    local count task tid tgid
    read -r count
    echo "$count"
    while read -r count task; do
      # A task name may hold spaces; its thread id follows the last dash.
      tid=${task##*-}
      tgid=$(awk '/^Tgid:/ { print $2 }' "/proc/$tid/status" 2>/dev/null)
      echo "$count $task (tgid ${tgid:-gone})"
    done | sort -rn
  }
}
