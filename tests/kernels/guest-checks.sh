#!/bin/sh
# The kernel matrix's guest side (tests/kernels/run-kernel boots it with
# tools/kernels/run-guest; busybox sh, with guest-lib.sh's functions).  For
# each mode, biosnoop watches vda (the data image, mounted on /mnt) while
# dd reads each file listed in /etc/kernel-matrix/files with O_DIRECT; then
# SIGINT.  Nothing is asserted here: each mode's output (-o), stdout,
# stderr and exit status, the manifest (which dd pid read which file,
# expecting which sectors), uname -r and dmesg go to /results, written as a
# tar to the second disk (vdb) for the host.
set -eu -o pipefail
export PATH=/bin
results=/results
manifest=$results/manifest
files=/etc/kernel-matrix/files
# shellcheck source=tests/kernels/guest-lib.sh
. /etc/kernel-matrix/guest-lib.sh

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
  if start_biosnoop "$mode" -d vda "$@"; then
    direct_reads "$mode"
    [ -z "$write" ] || buffered_write "$mode"
  fi
  stop_biosnoop "$mode"
}

# throttle_mode: the ops mode's reads from a cgroup v2 group that io.cost
# holds to 10 reads a second (its model gives each read 100 ms of device
# time, and the device's rate is fixed at the model's: min=max=100%), so
# their bios wait in rq_qos_throttle before they become requests.  The
# guest's hierarchy is cgroup v2 alone (mounted here if it is not yet).
throttle_mode() {
  mkdir -p /sys/fs/cgroup
  cg=/sys/fs/cgroup
  dev=$(cat /sys/block/vda/dev)
  [ -e "$cg/cgroup.controllers" ] ||
    mount -t cgroup2 none "$cg" 2>>"$results/throttle.err" || true
  if ! [ -e "$cg/cgroup.controllers" ] ||
    ! echo "$dev ctrl=user model=linear rbps=4294967296 rseqiops=10 rrandiops=10 wbps=4294967296 wseqiops=10 wrandiops=10" >"$cg/io.cost.model" ||
    ! echo "$dev enable=1 ctrl=user min=100.00 max=100.00" >"$cg/io.cost.qos" ||
    ! echo +io >"$cg/cgroup.subtree_control" || ! mkdir -p "$cg/slow"; then
    log "throttle: no cgroup v2 io.cost"
    echo "no cgroup v2 io.cost" >>"$results/throttle.err"
    return 0
  fi
  if start_biosnoop throttle -d vda --ops --op-min-us 0; then
    (echo 0 >"$cg/slow/cgroup.procs" && direct_reads throttle)
  fi
  stop_biosnoop throttle
  echo "$dev enable=0" >"$cg/io.cost.qos" || true
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
throttle_mode
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
