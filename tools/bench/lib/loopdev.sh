# shellcheck shell=bash
# The benchmark disk: a loop device with direct I/O over a file in tmpfs,
# as issue #5 specifies.  Sourced, not executed.

# loopdev_create FILE SIZE: prints the new device (/dev/loopN).  The file
# is fallocated, not sparse, so reads hit real pages rather than holes.
# Fails (fallocate's or losetup's message on stderr) when either does:
# called in a command substitution, where errexit does not reach.
loopdev_create() {
  fallocate -l "$2" "$1" || return
  losetup --find --show --direct-io=on "$1"
}

# 1 when DEVICE does direct I/O to its backing file, else 0.
loopdev_dio() { losetup --noheadings --output DIO --list "$1" | tr -d ' '; }

loopdev_destroy() { losetup --detach "$1"; }
