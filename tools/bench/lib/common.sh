# shellcheck shell=bash
# Shared helpers for tools/bench/run: messages, counters, JSON records.
# Sourced, not executed.

log() { printf 'bench: %s\n' "$*" >&2; }
die() {
  printf 'bench: %s\n' "$*" >&2
  exit 1
}

# Reads completed on block device NAME: field 1 of /sys/block/NAME/stat.
reads_completed() {
  local reads _
  read -r reads _ < "/sys/block/$1/stat"
  echo "$reads"
}

# Requests of the workload's direction the disk DEV completed: reads, or
# with --workload bufwrite, writes and flushes (fields 5 and 16 of its
# stat: fsync's flushes are events too).
ios_completed() {
  if [[ ${fio_dir:-read} == write ]]; then
    local -a f
    read -ra f < "/sys/block/$1/stat"
    echo $((f[4] + ${f[15]:-0}))
  else
    reads_completed "$1"
  fi
}

# record FILE [--arg k v | --argjson k json]...: appends one JSON object
# with those members to FILE (one object per line).
record() {
  local file=$1
  shift
  jq -cn "$@" '$ARGS.named' >> "$file"
}

# A JSON number, or null for an empty value.
num_or_null() { if [[ -n ${1:-} ]]; then echo "$1"; else echo null; fi; }

# Prints VALUE with printf FORMAT, or an em dash when VALUE is null/empty.
fmt() {
  if [[ -z ${1:-} || $1 == null ]]; then
    printf '—'
  else
    # shellcheck disable=SC2059
    printf "$2" "$1"
  fi
}

# Text safe inside a Markdown table cell (one line, no pipes).
md_cell() {
  local s=${1//|/\\|}
  s=${s//$'\n'/ }
  printf '%s' "$s"
}
