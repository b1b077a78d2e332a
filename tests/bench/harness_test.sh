#!/usr/bin/env bash
# tools/bench/run end to end, on the real kernel: a one-round series of
# every built-in configuration, the kernel-side table from bpf_stats, the
# size-based exactness pass and the micro-benchmarks, then the same harness
# interrupted mid-series as Ctrl-C would.  Either way the machine must be
# left as it was found: no loop device, no files, no process, bpf_stats,
# free page reporting and tracefs as before.  Needs root; exits 77 (skip)
# without it, unless CI=true, where a skip is a failure.
#
#   harness_test.sh REPO_ROOT BIOSNOOP BUILD_DIR
set -euo pipefail

root=${1:?usage: harness_test.sh REPO_ROOT BIOSNOOP BUILD_DIR}
biosnoop=${2:?usage: harness_test.sh REPO_ROOT BIOSNOOP BUILD_DIR}
export BIOSNOOP_BUILD_DIR=${3:?usage: harness_test.sh REPO_ROOT BIOSNOOP BUILD_DIR}

if ((EUID != 0)); then
  if [[ ${CI:-} == true ]]; then
    echo "FAIL: the harness test needs root, and under CI it must run" >&2
    exit 1
  fi
  echo "skipped: needs root (loop devices, BPF, bpf_stats)" >&2
  exit 77
fi

# shellcheck source=SCRIPTDIR/checks.sh
source "$root/tests/bench/checks.sh"

work=$(mktemp -d /dev/shm/biosnoop-harness-test.XXXXXX)
trap 'umount -q "$work/small" 2>/dev/null || true; rm -rf "$work"' EXIT
# The EXIT trap also on a signal (Ctrl-C, a timeout) or a closed pipe
# (`| head`), which would otherwise end the script without it.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
trap '' PIPE

pagereport=/sys/module/page_reporting/parameters/page_reporting_order
tracing=/sys/kernel/tracing
# What the harness touches, as one line, to compare before and after.
machine_state() {
  local pr=none trace=none
  [[ -r $pagereport ]] && pr=$(<"$pagereport")
  if [[ -r $tracing/events/block/block_rq_complete/enable ]]; then
    trace="enable=$(<"$tracing/events/block/block_rq_complete/enable")"
    trace+=" on=$(<"$tracing/tracing_on") kb=$(cut -d' ' -f1 "$tracing/buffer_size_kb")"
  fi
  echo "bpf_stats=$(sysctl -n kernel.bpf_stats_enabled) page_reporting=$pr trace=[$trace]"
}
# What the harness left in the work directory, besides its report and log.
files_here() { find "$work" -mindepth 1 ! -name report.md ! -name stderr -printf '%P\n'; }
# Loop devices over files in the test's work directory.
loops_here() { losetup --noheadings --list --output NAME,BACK-FILE | grep -c -- "$work" || true; }
procs_here() { pgrep -f -- "$work" | grep -cvx "$$" || true; }

# --- a work directory it cannot use: said before anything is set up -------
rc=0
err=$("$root/tools/bench/run" --workdir "$work/none" --biosnoop "$biosnoop" 2>&1 >/dev/null) || rc=$?
check "no work directory: usage error" 64 "$rc"
check "no work directory: the message" "bench: --workdir $work/none: not a writable directory" "$err"
mkdir "$work/small"
mount -t tmpfs -o size=64M biosnoop-harness-test "$work/small"
rc=0
err=$("$root/tools/bench/run" --workdir "$work/small" --biosnoop "$biosnoop" 2>&1 >/dev/null) || rc=$?
check "full work directory: fails" 1 "$rc"
matches "full work directory: the message" \
  "^bench: --workdir $work/small \(tmpfs\) has 6[0-9] MiB free; this series needs about [0-9]+ MiB" "$err"
check "full work directory: nothing written there" "" "$(find "$work/small" -mindepth 1)"
umount "$work/small"
rmdir "$work/small"
check "bad work directories: no loop device left" 0 "$(loops_here)"

# --- a whole series, one round --------------------------------------------
before=$(machine_state)
rc=0
"$root/tools/bench/run" --quick --runs 1 --runtime 1 --exact-ios 20000 \
  --biosnoop "$biosnoop" --workdir "$work" >"$work/report.md" 2>"$work/stderr" || rc=$?
check "series: exit status" 0 "$rc"
((rc == 0)) || tail -20 "$work/stderr"
report=$(<"$work/report.md")

# cell CONFIG N: column N of CONFIG's row in the series table (columns:
# config, runs, IOPS, ratio, CI, CPU, wakeups, RSS, events, lost, missed /
# unfinished, budget, notes), trimmed.
cell() {
  grep -E "^\| $1 \| [0-9]+/[0-9]+ \|" "$work/report.md" |
    awk -F'|' -v n="$(($2 + 1))" '{ gsub(/^ +| +$/, "", $n); print $n }'
}
matches "series: the report says what ran" \
  '- 1 round \(baseline floor quiet jsonl proto hist\), after one warm-up round' "$report"
# Every configuration ran once and measured IOPS.
for c in baseline floor quiet jsonl proto hist; do
  check "series: $c ran once" 1/1 "$(cell "$c" 2)"
  matches "series: $c measured IOPS" '^[1-9][0-9]+ \(' "$(cell "$c" 3)"
done
# biosnoop's configurations reported their peak RSS; those with a ring
# buffer (not histograms) lost nothing.
for c in quiet jsonl proto hist; do
  matches "series: $c's peak RSS" '^[1-9][0-9]*\.[0-9]$' "$(cell "$c" 8)"
done
for c in quiet jsonl proto; do
  check "series: $c lost nothing" 0 "$(cell "$c" 10)"
done
# jsonl's events are the disk's completions, or the shortfall is counted.
matches "series: jsonl's events against the disk's completions" \
  '^[1-9][0-9]* / [1-9][0-9]* \((all|missing .*, all reported as missed or unfinished)\)$' \
  "$(cell jsonl 9)"
# The kernel side: each of biosnoop's per-I/O programs ran once per I/O
# of the benchmark's disk.  The hooks also see every other disk's I/O (the
# machine's own writes, a busy disk beside the test), counted against the
# benchmark disk's completions: a run count from 1 up to below 1.5 is
# "once" (twice would be 2, never run 0).  Recursion misses are counted,
# not required to be 0: another disk's interrupt may complete a request
# while a program runs on that CPU.
once='1(\.[0-4][0-9]*)?'
for p in handle_io_start handle_rq_issue handle_rq_complete; do
  matches "kernel side: quiet's $p, once per I/O" \
    "\| quiet \| $p \| $once \| [1-9][0-9]* \| [1-9][0-9]* \| [0-9]+ \|" "$report"
done
matches "kernel side: the floor's empty programs" \
  '\| floor \| \*\*all\*\* \| 3(\.[0-4][0-9]*)? \| \| \*\*[1-9][0-9]*\*\* \|' "$report"
# Exactness: 20,000 reads, each in the output exactly once, or a shortfall
# biosnoop counted as missed (verdict "counted"; the kernel's own trace
# names the completions absent from the output).
exact_row=$(grep -E '^\| jsonl \| 20000 \|' "$work/report.md" || true)
IFS='|' read -ra x <<<"$exact_row"
check "exactness: fio's reads, the disk's and the kernel trace's completions" \
  " 20000 | 20000 | 20000 " "${x[3]}|${x[4]}|${x[5]}"
check "exactness: nothing lost" " 0 " "${x[10]:-}"
matches "exactness: verdict" '^ (exact|counted: [0-9]+ missing, all reported as missed.*) $' "${x[14]:-}"
if [[ ${x[14]:-} == " exact " ]]; then
  check "exactness: every read once in the output" " 20000 | 20000 | 0 / 0 " "${x[7]}|${x[8]}|${x[11]}"
fi
# The micro-benchmarks ran and were reported in ns per event.
matches "micro-benchmarks: decode + enrich + JSONL" \
  '\| BM_DecodeEnrichJsonl \| [0-9.]+ \|' "$report"

check "series: machine state restored" "$before" "$(machine_state)"
check "series: no loop device left" 0 "$(loops_here)"
check "series: no process left" 0 "$(procs_here)"
check "series: work directory emptied" "" "$(files_here)"

# --- interrupted mid-series -------------------------------------------------
# Ctrl-C sends SIGINT to the whole foreground process group: the harness,
# fio and the tracer.  Job control gives the harness a group of its own
# (and, unlike a plain background job, does not start it with SIGINT
# ignored).
rm -f "$work/report.md" "$work/stderr"
before=$(machine_state)
set -m
"$root/tools/bench/run" --runs 1 --runtime 3 --kernel-runs 1 --no-micro \
  --exact-ios 0 --configs quiet,jsonl --biosnoop "$biosnoop" --workdir "$work" \
  >"$work/report.md" 2>"$work/stderr" &
pid=$!
set +m
# Interrupt in the warm-up round, while jsonl's biosnoop runs with
# bpf_stats on: a run is logged when it ends, so once quiet's warm-up run
# is, jsonl's is next (3 s of fio).  Wait for that state itself (jsonl's
# tracer up and bpf_stats turned on for it), however slow the machine.
jsonl_tracers() { pgrep -c -f -- "$work/.*/jsonl.out" || true; }
awaited=""
for ((i = 0; i < 1800; i++)); do
  if grep -q "round 0 quiet" "$work/stderr" 2>/dev/null &&
    [[ $(jsonl_tracers) == 1 && $(sysctl -n kernel.bpf_stats_enabled) == 1 ]]; then
    awaited=yes
    break
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $awaited ]]; then
  if kill -0 "$pid" 2>/dev/null; then
    echo "interrupt: gave up after 180 s waiting for quiet's warm-up run to be" \
      "logged and jsonl's tracer to run with bpf_stats on" >&2
  else
    echo "interrupt: the series ended before jsonl's tracer was seen running" \
      "with bpf_stats on" >&2
  fi
  echo "(logged: $(grep -c "round 0 quiet" "$work/stderr" 2>/dev/null || true)," \
    "jsonl tracers: $(jsonl_tracers), bpf_stats: $(sysctl -n kernel.bpf_stats_enabled));" \
    "the series' stderr:" >&2
  cat "$work/stderr" >&2 || true
fi
check "interrupt: jsonl's tracer was running" 1 "$(jsonl_tracers)"
check "interrupt: bpf_stats on during the warm-up round" 1 "$(sysctl -n kernel.bpf_stats_enabled)"
rc=0
err=$("$root/tools/bench/run" --quick --biosnoop "$biosnoop" --workdir "$work" 2>&1 >/dev/null) || rc=$?
check "a second series meanwhile: refused" 1 "$rc"
check "a second series meanwhile: the message" \
  "bench: another tools/bench/run is running on this machine (lock /run/lock/biosnoop-bench.lock)" "$err"
kill -INT -- "-$pid" 2>/dev/null || echo "interrupt: the series had already ended" >&2
rc=0
wait "$pid" || rc=$?
check "interrupt: exit status 130" 130 "$rc"
check "interrupt: machine state restored" "$before" "$(machine_state)"
check "interrupt: no loop device left" 0 "$(loops_here)"
check "interrupt: no process left" 0 "$(procs_here)"
check "interrupt: work directory emptied" "" "$(files_here)"

# --- hook_floor with a subset of hooks (the floor ladder) -------------------
# Only the named hooks get a program: what the kernel shows attached.
floor=$BIOSNOOP_BUILD_DIR/tools/bench/hook_floor
rc=0
err=$("$floor" issue,bogus 2>&1) || rc=$?
check "hook_floor: an unknown hook is bad usage" 64 "$rc"
contains "hook_floor: says what it takes" "submit, issue, complete" "$err"
"$floor" issue,complete 2>"$work/floor.err" &
fpid=$!
for ((i = 0; i < 1200; i++)); do
  grep -q "stop with SIGINT" "$work/floor.err" 2>/dev/null && break
  kill -0 "$fpid" 2>/dev/null || break
  sleep 0.1
done
grep -q "stop with SIGINT" "$work/floor.err" 2>/dev/null ||
  echo "hook_floor: no 'stop with SIGINT' line on its stderr after 120 s" >&2
check "hook_floor issue,complete: says what it attached" \
  "hook_floor: empty programs on block_rq_issue block_rq_complete; stop with SIGINT" \
  "$(cat "$work/floor.err")"
# The programs of the process: their names, from its file descriptors.
progs=$(for id in $(awk '/^prog_id:/ { print $2 }' /proc/"$fpid"/fdinfo/* 2>/dev/null | sort -u); do
  bpftool prog show id "$id" --json | jq -r .name
done | sort | paste -sd,)
check "hook_floor issue,complete: loaded programs" "floor_rq_complete,floor_rq_issue" "$progs"
kill -INT "$fpid"
rc=0
wait "$fpid" || rc=$?
check "hook_floor: stops on SIGINT" 0 "$rc"
rm -f "$work/floor.err"

if ((failures > 0)); then
  echo "$failures check(s) failed; harness stderr:"
  tail -30 "$work/stderr"
  exit 1
fi
echo "all harness checks passed"
