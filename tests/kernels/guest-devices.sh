#!/bin/sh
# The kernel matrix's device checks, guest side (tests/kernels/run-kernel
# --devices boots it with tools/kernels/run-guest; busybox sh, with
# guest-lib.sh's functions): the devices the CI machine's own kernel lacks,
# built here from the disks run-kernel attached:
#   nvme0n1  the data image (known files), NVMe
#   vda      an LVM physical volume with the data image 1 MiB in, where
#            the volume vg0/data (dm-linear) starts
#   vdb      under a dm-crypt device, "secret" (plain aes-xts, no header)
#   vdc vdd  the two members of an md raid1, md0
#   vde      the results (a tar)
# For each, biosnoop watches the disk the I/O reaches while dd reads known
# blocks with O_DIRECT through the device on top (and, on LVM, the files
# through the page cache too); biosnoop -d is also given the stacked
# devices themselves.  Nothing is asserted here: biosnoop's output, stderr
# and status per mode, and the manifest go to the host
# (kernel_devices_test).  Manifest lines, besides the reads ("MODE read|
# buffered-read PID STATUS PATH SECTOR...", the sectors the stacked
# device's own):
#   MODE device NAME [MAPPER_NAME]   the stacked device the reads go through
#   MODE member DISK OFFSET          a disk under it and the sector on DISK
#                                    where the device's sector 0 is
#   MODE fsync PID STATUS PATH       lvm-ops: dd's write and fsync of PATH
set -eu -o pipefail
export PATH=/bin
results=/results
manifest=$results/manifest
# shellcheck source=tests/kernels/guest-lib.sh
. /etc/kernel-matrix/guest-lib.sh

# The blocks (4 KiB, device-relative) dd reads from the raw devices: none
# at block 0, which the kernel's partition scan reads at first open.
raw_blocks="1 7 100 1000"
# No udev in the guest: LVM makes its /dev nodes itself and lists devices
# by scanning /dev.
lvm_config='activation{udev_sync=0 udev_rules=0} devices{obtain_device_list_from_udev=0 external_device_info_source="none"}'
crypt_key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
crypt_offset=2048

# raw_reads MODE DEV: each of $raw_blocks read from DEV by its own dd;
# "MODE read PID STATUS DEV SECTOR" in the manifest.
raw_reads() {
  for b in $raw_blocks; do
    dd if="$2" of=/dev/null bs=4096 iflag=direct skip="$b" count=1 \
      2>>"$results/$1.dd.err" &
    pid=$!
    rc=0
    wait "$pid" || rc=$?
    echo "$1 read $pid $rc $2 $((b * 8))" >>"$manifest"
  done
}

# buffered_reads MODE: each listed file read whole by dd through the page
# cache, emptied first; "MODE buffered-read PID STATUS PATH SECTOR..." in
# the manifest.
buffered_reads() {
  sync
  echo 3 >/proc/sys/vm/drop_caches
  while read -r path sectors; do
    dd if="$path" of=/dev/null bs=4096 2>>"$results/$1.dd.err" &
    pid=$!
    rc=0
    wait "$pid" || rc=$?
    echo "$1 buffered-read $pid $rc $path $sectors" >>"$manifest"
  done </etc/kernel-matrix/files
}

# lvm_fsync MODE: dd writes a new file on /mnt (16 blocks) and fsyncs it;
# "MODE fsync PID STATUS PATH" in the manifest.
lvm_fsync() {
  dd if=/dev/zero of=/mnt/ops-fsync bs=4096 count=16 conv=fsync \
    2>>"$results/$1.dd.err" &
  pid=$!
  rc=0
  wait "$pid" || rc=$?
  echo "$1 fsync $pid $rc /mnt/ops-fsync" >>"$manifest"
}

# run_mode MODE READS ARGS...: one biosnoop run (ARGS) around READS (a
# command line, run only when biosnoop attached).
run_mode() {
  mode=$1 reads=$2
  shift 2
  if start_biosnoop "$mode" "$@"; then
    $reads
  fi
  stop_biosnoop "$mode"
}

# The kernel name (dm-N) of device-mapper device $1.
dm_kernel_name() {
  dmsetup info -c --noheadings -o blkdevname "$1"
}

mkdir -p "$results" /run/lock/lvm /run/lvm
: >"$manifest"
uname -r >"$results/uname"
cp /etc/kernel-matrix/files "$results/files"
for d in vda vdb vdc vdd vde nvme0n1; do wait_for_block "/dev/$d"; done

# NVMe: the data image's file system, read through nvme0n1.
mount -t ext4 /dev/nvme0n1 /mnt
echo "nvme member nvme0n1 0" >>"$manifest"
run_mode nvme "direct_reads nvme" -d nvme0n1
umount /mnt

# LVM: vg0/data over vda.  pvcreate and lvcreate leave the data image in
# place (nothing is wiped past the label and metadata before 1 MiB; -Zn
# -Wn: no zeroing or signature wiping of the new volume).
lvm pvcreate --config "$lvm_config" --dataalignment 1m /dev/vda
lvm vgcreate --config "$lvm_config" vg0 /dev/vda
lvm lvcreate --config "$lvm_config" -Zn -Wn -y -n data -L 64M vg0
wait_for_block /dev/mapper/vg0-data
dmsetup table vg0-data >"$results/lvm.table"
dm=$(dm_kernel_name vg0-data)
# The table is "0 SECTORS linear MAJ:MIN OFFSET".
echo "lvm device $dm vg0-data" >>"$manifest"
echo "lvm member vda $(awk '{ print $5 }' "$results/lvm.table")" >>"$manifest"
mount -t ext4 /dev/mapper/vg0-data /mnt
run_mode lvm "direct_reads lvm" -d vda
# The stacked device itself: refused naming vda, or followed.
run_mode lvm-d-kernel-name "direct_reads lvm-d-kernel-name" -d "$dm"
run_mode lvm-d-mapper "direct_reads lvm-d-mapper" -d /dev/mapper/vg0-data
run_mode lvm-buffered "buffered_reads lvm-buffered" -d vda
# --ops on the volume: dd writes a new file and fsyncs it; the journal
# commit and cache flush it waits for are requests on vda, below the
# volume.
run_mode lvm-ops "lvm_fsync lvm-ops" --ops --op-min-us 0
umount /mnt

# dm-crypt: "secret" over vdb from sector $crypt_offset, read raw.
dmsetup create secret --table \
  "0 16384 crypt aes-xts-plain64 $crypt_key 0 /dev/vdb $crypt_offset"
# Without udev, dmsetup leaves the /dev/mapper node to be made.
dmsetup mknodes secret
wait_for_block /dev/mapper/secret
echo "crypt device $(dm_kernel_name secret) secret" >>"$manifest"
echo "crypt member vdb $crypt_offset" >>"$manifest"
run_mode crypt "raw_reads crypt /dev/mapper/secret" -d vdb

# md raid1 over vdc and vdd, clean from the start (no resync I/O).
mdadm --create /dev/md0 --level=1 --raid-devices=2 --metadata=1.2 --run \
  --assume-clean /dev/vdc /dev/vdd
wait_for_block /dev/md0
echo "md device md0" >>"$manifest"
for m in vdc vdd; do
  echo "md member $m $(cat /sys/block/md0/md/dev-$m/offset)" >>"$manifest"
done
# Either member may serve a read: biosnoop watches every disk.
run_mode md "raw_reads md /dev/md0"
run_mode md-d-md0 "raw_reads md-d-md0 /dev/md0" -d md0

dmesg >"$results/dmesg"
tar -cf /dev/vde -C "$results" .
sync
log "results written to vde"
