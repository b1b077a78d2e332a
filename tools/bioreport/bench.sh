#!/usr/bin/env bash
# Throughput of bioreport on generated streams: writes EVENTS synthetic
# events (default 5 million, a summary record every 10000, with fine
# buckets as biosnoop writes them) in each format
# to a temporary directory, times `bioreport json` (read, filter,
# aggregate, exact percentiles) and `bioreport heatmap` (read, bin, draw)
# on each, and prints events per second and peak memory; then runs the
# in-memory reader micro-benchmarks (bioreport_bench) if they were built.
# Not part of ctest.
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
  "$bin/bioreport_gen" --events "$events" --format "$format" --fine \
    --stats-every 100000 --summary-every 10000 -o "$file"
  cat "$file" > /dev/null  # warm the page cache: measure parsing, not the disk
  size=$(stat -c %s "$file")
  for report in json heatmap; do
    start=$(now_ns)
    if [[ -x /usr/bin/time ]]; then
      /usr/bin/time -f %M -o "$work/rss" "$bin/bioreport" "$report" "$file" \
        > /dev/null 2>&1
    else
      "$bin/bioreport" "$report" "$file" > /dev/null 2>&1
      echo 0 > "$work/rss"
    fi
    end=$(now_ns)
    awk -v r="$report" -v f="$format" -v n="$events" -v ns="$((end - start))" \
      -v size="$size" -v rss="$(cat "$work/rss")" 'BEGIN {
      printf "bioreport %s, %s: %d events (%.0f MB) in %.2f s: %.2f M events/s, peak RSS %.0f MB\n",
        r, f, n, size / 1e6, ns / 1e9, n / (ns / 1e9) / 1e6, rss / 1024 }'
  done
done
if [[ -x $bin/bioreport_bench ]]; then
  "$bin/bioreport_bench" --benchmark_min_time=1
fi
