#!/bin/sh
# Shell functions the kernel matrix's guest scripts share (busybox sh):
# guest-checks.sh and guest-devices.sh source it from
# /etc/kernel-matrix/guest-lib.sh, where tests/kernels/run-kernel puts it.
# Each waits for a state with a bound, never for a fixed time.  Sourced,
# it runs under the caller's options (set -eu -o pipefail); the caller
# sets $results (the directory tarred back to the host) and $manifest.
# shellcheck disable=SC2154 # results and manifest: the caller's
attach_wait_s=180 # loading under TCG takes seconds; this bounds a hang
exit_wait_s=120
block_wait_s=30

log() { echo "checks: $*"; }

# A process that has not exited (a zombie has; a reaped one is gone).
alive() {
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) || true
  [ -n "$state" ] && [ "$state" != Z ]
}

# wait_for_block DEV: until DEV is a block device; exits the script past
# the bound.
wait_for_block() {
  start=$(date +%s)
  until [ -b "$1" ]; do
    if [ $(($(date +%s) - start)) -ge $block_wait_s ]; then
      log "no block device $1 after $block_wait_s s"
      exit 1
    fi
    sleep 0.1
  done
}

# start_biosnoop MODE ARGS...: biosnoop -v --min-us 0 ARGS in the
# background (pid in $bpid), output in MODE.out, stdout and stderr in
# MODE.stdout and MODE.err; returns once its stderr says it attached, 1 if
# it exited (a refusal: stop_biosnoop records its status) or hung first.
start_biosnoop() {
  mode=$1
  shift
  biosnoop -v --min-us 0 -o "$results/$mode.out" "$@" \
    >"$results/$mode.stdout" 2>"$results/$mode.err" &
  bpid=$!
  start=$(date +%s)
  until grep -q 'biosnoop: attached' "$results/$mode.err"; do
    if ! alive "$bpid"; then
      log "$mode: biosnoop exited before 'biosnoop: attached' on its stderr"
      return 1
    fi
    if [ $(($(date +%s) - start)) -ge $attach_wait_s ]; then
      log "$mode: no 'biosnoop: attached' on biosnoop's stderr within $attach_wait_s s"
      return 1
    fi
    sleep 0.1
  done
  log "$mode: biosnoop attached after $(($(date +%s) - start)) s"
}

# stop_biosnoop MODE: SIGINT, and its exit status in MODE.rc (KILL past a
# bound, noted in MODE.err).
stop_biosnoop() {
  kill -INT "$bpid" 2>/dev/null || true
  start=$(date +%s)
  while alive "$bpid"; do
    if [ $(($(date +%s) - start)) -ge $exit_wait_s ]; then
      echo "guest-checks: biosnoop still running $exit_wait_s s after SIGINT: killed" >>"$results/$1.err"
      kill -KILL "$bpid"
      break
    fi
    sleep 0.1
  done
  rc=0
  wait "$bpid" || rc=$?
  echo "$rc" >"$results/$1.rc"
  log "$1: biosnoop exited $rc"
}

# direct_reads MODE: each file listed in /etc/kernel-matrix/files read
# whole by dd (4 KiB direct reads); "MODE read PID STATUS PATH SECTOR..."
# in the manifest, the sectors those of the file system's device.
direct_reads() {
  while read -r path sectors; do
    # dd through its applet link: its comm is "dd".
    dd if="$path" of=/dev/null bs=4096 iflag=direct 2>>"$results/$1.dd.err" &
    pid=$!
    rc=0
    wait "$pid" || rc=$?
    echo "$1 read $pid $rc $path $sectors" >>"$manifest"
  done </etc/kernel-matrix/files
}
