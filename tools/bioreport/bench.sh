#!/usr/bin/env bash
# Throughput of bioreport on generated streams: writes EVENTS synthetic
# events (default 5 million) in each format to a temporary directory, times
# `bioreport json` (read, filter, aggregate, exact percentiles) on each, and
# prints events per second; then runs the in-memory reader micro-benchmarks
# (bioreport_bench) if they were built.  Not part of ctest.
#
#   tools/bioreport/bench.sh [BUILD_DIR] [EVENTS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
events=${2:-5000000}
bin=$build/tools/bioreport
cmake --build "$build" --target bioreport bioreport_gen >/dev/null ||
  [[ -x $bin/bioreport && -x $bin/bioreport_gen ]]  # else stop (set -e)
cmake --build "$build" --target bioreport_bench >/dev/null 2>&1 || true
work=$(mktemp -d /tmp/bioreport-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

now_ns() { date +%s%N; }
for format in jsonl proto; do
  file=$work/events.$format
  "$bin/bioreport_gen" --events "$events" --format "$format" \
    --stats-every 100000 -o "$file"
  cat "$file" > /dev/null  # warm the page cache: measure parsing, not the disk
  start=$(now_ns)
  "$bin/bioreport" json "$file" > /dev/null
  end=$(now_ns)
  ns=$((end - start))
  size=$(stat -c %s "$file")
  awk -v f="$format" -v n="$events" -v ns="$ns" -v size="$size" 'BEGIN {
    printf "bioreport json, %s: %d events (%.0f MB) in %.2f s: %.2f M events/s\n",
      f, n, size / 1e6, ns / 1e9, n / (ns / 1e9) / 1e6 }'
done
if [[ -x $bin/bioreport_bench ]]; then
  "$bin/bioreport_bench" --benchmark_min_time=1
fi
