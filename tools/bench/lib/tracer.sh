# shellcheck shell=bash
# The tracer under test: started in its own session (so its process group
# is its pid), measured over the whole group, stopped with SIGINT as a user
# would.  One tracer at a time; its pid is in $tracer_pid while it runs.
# Sourced, not executed.

tracer_pid=
clk_tck=$(getconf CLK_TCK)

# tracer_start COMMAND STDOUT STDERR: runs COMMAND (a bash command line)
# in a new session.  `exec` so that a simple command is the session
# leader itself, not a shell waiting for it.  Background jobs of a script
# start with SIGINT ignored; env restores the default so that a tracer
# which does not install its own handler still stops on SIGINT.
tracer_start() {
  setsid env --default-signal=INT,QUIT bash -c "exec $1" \
    </dev/null >"$2" 2>"$3" &
  tracer_pid=$!
}

# Pids of the tracer's process group, and the tracer's own pid: until the
# child has called setsid() (a moment on an idle machine, longer on a
# loaded one) it is still in the harness's group and its own group does
# not exist yet, and a group-only view would take a tracer that is only
# starting for one that exited, and stop it (it then died of the SIGINT,
# "did not start (exit 130)").
tracer_pids() {
  { echo "$tracer_pid"; pgrep -g "$tracer_pid" || true; } | sort -un
}

# True while some process of the group is alive (zombies do not count).
# /proc files are read with `read`, not $(<file): under set -e, bash 5.2
# exits when $(<file) cannot open a file, even with `|| continue`, and a
# process may vanish between pgrep and the read.
tracer_alive() {
  local p state
  for p in $(tracer_pids); do
    { read -r state <"/proc/$p/stat"; } 2>/dev/null || continue
    state=${state##*) }
    [[ ${state:0:1} != Z ]] && return 0
  done
  return 1
}

# "USER_S SYS_S SWITCHES" of the group: CPU seconds (including reaped
# children) and context switches, voluntary or not (each wakeup of a
# sleeping tracer is one).
tracer_usage() {
  local user=0 sys=0 switches=0 p s f n
  for p in $(tracer_pids); do
    { read -r s <"/proc/$p/stat"; } 2>/dev/null || continue
    s=${s##*) }
    read -ra f <<<"$s"
    # f[0] is field 3 (state): utime, stime, cutime, cstime are 14..17.
    user=$((user + f[11] + f[13]))
    sys=$((sys + f[12] + f[14]))
    n=$(awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }' \
      "/proc/$p/status" 2>/dev/null) || continue
    switches=$((switches + n))
  done
  awk -v u="$user" -v s="$sys" -v n="$switches" -v hz="$clk_tck" \
    'BEGIN { printf "%.3f %.3f %d", u / hz, s / hz, n }'
}

# Peak resident set (VmHWM, KiB) summed over the group.
tracer_hwm_kib() {
  local total=0 p kib
  for p in $(tracer_pids); do
    kib=$(awk '/^VmHWM:/ { print $2 }' "/proc/$p/status" 2>/dev/null) || continue
    total=$((total + ${kib:-0}))
  done
  echo "$total"
}

# Ids of the BPF programs the group holds, through program or link file
# descriptors (fdinfo has prog_id for both), one per line.
tracer_prog_ids() {
  local p
  for p in $(tracer_pids); do
    grep -h '^prog_id:' "/proc/$p/fdinfo/"* 2>/dev/null || true
  done | awk '{ print $2 }' | sort -un
}

# Number of BPF program and link descriptors the group holds.
tracer_bpf_fds() {
  local p
  for p in $(tracer_pids); do
    grep -l '^prog_id:' "/proc/$p/fdinfo/"* 2>/dev/null || true
  done | wc -l
}

# tracer_wait_attached TIMEOUT_S: 0 once the group holds BPF programs and
# their number has not changed for half a second (loaded, then attached);
# 1 when the tracer exited; 2 when it is alive but showed no BPF program
# before the timeout.
tracer_wait_attached() {
  local deadline=$((SECONDS + $1)) prev=-1 n stable=0
  while ((SECONDS < deadline)); do
    tracer_alive || return 1
    n=$(tracer_bpf_fds)
    if ((n > 0 && n == prev)); then
      stable=$((stable + 1))
      ((stable >= 5)) && return 0
    else
      stable=0
    fi
    prev=$n
    sleep 0.1
  done
  return 2
}

# Waits until FILE (if given and present) has stopped growing: the tracer
# has written what it had queued.  At most 10 s.
tracer_drain() {
  local file=${1:-} size prev=-1 stable=0 i
  if [[ -z $file || ! -e $file ]]; then
    sleep 0.3
    return 0
  fi
  for ((i = 0; i < 50; i++)); do
    size=$(stat -c %s "$file" 2>/dev/null || echo 0)
    if ((size == prev)); then
      stable=$((stable + 1))
      ((stable >= 2)) && return 0
    else
      stable=0
    fi
    prev=$size
    sleep 0.2
  done
}

# Stops the group: SIGINT, then SIGTERM after 10 s, then SIGKILL after 5 s.
# Sets tracer_rc to the leader's exit status.
tracer_stop() {
  local sig wait_ticks t
  tracer_rc=
  [[ -n $tracer_pid ]] || return 0
  for sig in INT TERM KILL; do
    case $sig in INT) wait_ticks=100 ;; *) wait_ticks=50 ;; esac
    # The group, and the tracer itself in case it has no group yet.
    kill -s "$sig" -- "-$tracer_pid" 2>/dev/null || true
    kill -s "$sig" -- "$tracer_pid" 2>/dev/null || true
    for ((t = 0; t < wait_ticks; t++)); do
      tracer_alive || break 2
      sleep 0.1
    done
    log "tracer $tracer_pid still running after SIG$sig"
  done
  tracer_rc=0
  wait "$tracer_pid" 2>/dev/null || tracer_rc=$?
  tracer_pid=
}

# bpf_prog_stats ID...: JSON array of {id, name, ns, cnt, misses} for
# those programs: run_time_ns and run_cnt (0 while bpf_stats was off), and
# recursion_misses (runs the kernel skipped because the program was
# already running on that CPU: counted whether bpf_stats is on or not).
bpf_prog_stats() {
  local ids
  ids=$(printf '%s\n' "$@" | jq -cs '.')
  bpftool prog show --json | jq -c --argjson ids "$ids" '
    [.[] | select(.id as $i | any($ids[]; . == $i))
         | {id, name, ns: (.run_time_ns // 0), cnt: (.run_cnt // 0),
            misses: (.recursion_misses // 0)}]'
}
