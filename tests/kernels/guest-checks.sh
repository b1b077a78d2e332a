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
