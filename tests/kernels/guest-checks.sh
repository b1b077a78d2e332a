#!/bin/sh
# The kernel matrix's guest side (tests/kernels/run-kernel boots it with
# tools/kernels/run-guest; busybox sh).  For each mode, biosnoop watches vda
# (the data image, mounted on /mnt) while dd reads each file listed in
# /etc/kernel-matrix/files with O_DIRECT; then SIGINT.  Nothing is asserted
# here: each mode's output (-o), stdout, stderr and exit status, the
# manifest (which dd pid read which file, expecting which sectors), uname -r
# and dmesg go to /results, written as a tar to the second disk (vdb) for
# the host.
set -eu -o pipefail
export PATH=/bin
results=/results
files=/etc/kernel-matrix/files
manifest=$results/manifest
attach_wait_s=180 # loading under TCG takes seconds; this bounds a hang
exit_wait_s=120

log() { echo "checks: $*"; }

# A process that has not exited (a zombie has; a reaped one is gone).
alive() {
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) || true
  [ -n "$state" ] && [ "$state" != Z ]
}

wait_for_block() {
  start=$(date +%s)
  until [ -b "$1" ]; do
    if [ $(($(date +%s) - start)) -ge 30 ]; then
      log "no block device $1 after 30 s"
      exit 1
    fi
    sleep 0.1
  done
}

# start_biosnoop MODE ARGS...: biosnoop in the background (pid in $bpid),
# returned once its stderr says it attached; 1 if it exited or hung first.
start_biosnoop() {
  mode=$1
  shift
  biosnoop -v -d vda --min-us 0 -o "$results/$mode.out" "$@" \
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

# direct_reads MODE: each listed file read whole by dd (4 KiB direct
# reads); "MODE read PID STATUS PATH SECTOR..." in the manifest.
direct_reads() {
  while read -r path sectors; do
    # dd through its applet link: its comm is "dd".
    dd if="$path" of=/dev/null bs=4096 iflag=direct 2>>"$results/$1.dd.err" &
    pid=$!
    rc=0
    wait "$pid" || rc=$?
    echo "$1 read $pid $rc $path $sectors" >>"$manifest"
  done <"$files"
}

# buffered_write MODE: a new file written through the page cache by dd,
# then sync; "MODE write PID STATUS PATH" in the manifest.
buffered_write() {
  path=/mnt/written-$1.bin
  dd if=/dev/urandom of="$path" bs=4096 count=4 2>>"$results/$1.dd.err" &
  pid=$!
  rc=0
  wait "$pid" || rc=$?
  sync
  echo "$1 write $pid $rc $path" >>"$manifest"
}

# run_mode MODE [--write] ARGS...: one biosnoop run around the reads.
run_mode() {
  mode=$1
  shift
  write=""
  if [ "${1:-}" = --write ]; then
    write=1
    shift
  fi
  if start_biosnoop "$mode" "$@"; then
    direct_reads "$mode"
    [ -z "$write" ] || buffered_write "$mode"
  fi
  stop_biosnoop "$mode"
}

mkdir -p "$results"
: >"$manifest"
uname -r >"$results/uname"
cp "$files" "$results/files"
wait_for_block /dev/vda
wait_for_block /dev/vdb
mount -t ext4 /dev/vda /mnt
cat /sys/block/vda/queue/scheduler >"$results/schedulers"

run_mode default
run_mode no-files --no-files
run_mode ops --ops --op-min-us 0
run_mode writeback-owner --write --writeback-owner
run_mode hist --hist --json
run_mode proto --format proto
run_mode ecs --format ecs
# The default mode once under each scheduler vda offers.
for s in $(tr -d '[]' </sys/block/vda/queue/scheduler); do
  echo "$s" >/sys/block/vda/queue/scheduler
  if grep -q "\[$s\]" /sys/block/vda/queue/scheduler; then
    echo "sched-$s scheduler $s" >>"$manifest"
    run_mode "sched-$s"
  else
    log "vda refused scheduler $s"
    echo "sched-$s scheduler-refused $s" >>"$manifest"
  fi
done

dmesg >"$results/dmesg"
tar -cf /dev/vdb -C "$results" .
sync
log "results written to vdb"
