#!/usr/bin/env bash
# Quick answers from a biosnoop JSON Lines log with jq, no other tooling.
#   examples/slow-io-report.sh slow.jsonl
set -euo pipefail
log=${1:-slow.jsonl}

echo "== slow I/O per disk and operation (count, max latency ms)"
jq -s -r 'group_by([.disk, .op])[]
  | [.[0].disk, .[0].op, length, ((map(.latency_us) | max) / 1000)]
  | @tsv' "$log" | column -t

echo "== top processes by slow I/O count"
jq -r '"\(.comm)\t\(.pid)"' "$log" | sort | uniq -c | sort -rn | head -10

echo "== the 10 slowest I/Os"
jq -s -r 'sort_by(-.latency_us)[:10][]
  | [.timestamp, .disk, (.partition // "-"), .op, .sector, .bytes,
     .latency_us, .comm, (.error // "ok")] | @tsv' "$log" | column -t

echo "== failed I/Os"
jq -c 'select(.error != null) | {timestamp, disk, sector, op, error}' "$log"
