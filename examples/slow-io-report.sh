#!/usr/bin/env bash
# Quick answers from a biosnoop JSON Lines log with jq, no other tooling.
#   examples/slow-io-report.sh slow.jsonl
set -euo pipefail
log=${1:-slow.jsonl}
# Only event lines (the stream also has header, stats, summary and stuck lines).
events() { jq -c 'select(.type == "event")' "$log"; }

echo "== loss: the last stats record"
jq -c 'select(.type == "stats") | {timestamp, completions, emitted, lost, missed, dropped, final}' "$log" | tail -1

echo "== slow I/O per disk and operation (count, max latency ms)"
events | jq -s -r 'group_by([.disk, .op])[]
  | [.[0].disk, .[0].op, length, ((map(.latency_us) | max) / 1000)]
  | @tsv' | column -t

echo "== top processes by slow I/O count"
# Cut in jq, not with head: under pipefail, head leaving early kills sort
# with SIGPIPE, and the script with it, once many processes did slow I/O.
events | jq -s -r 'group_by([.comm, .pid]) | sort_by(-length)[:10][]
  | [length, .[0].comm, .[0].pid] | @tsv'

echo "== the 10 slowest I/Os"
events | jq -s -r 'sort_by(-.latency_us)[:10][]
  | [.timestamp, .disk, (.partition // "-"), .op, .sector, .bytes,
     .latency_us, .comm, (.error // "ok")] | @tsv' | column -t

echo "== failed I/Os"
events | jq -c 'select(.error != null) | {timestamp, disk, sector, op, error}'

echo "== requests stuck in flight (stuck records: still at the device, not completed then)"
jq -r 'select(.type == "stuck")
  | [.timestamp, .disk, (.partition // "-"), .op, .sector, .bytes,
     (.inflight_us / 1000), .comm, .pid] | @tsv' "$log" | column -t

echo "== share of slow I/O per interval (summary records)"
jq -r 'select(.type == "summary") | .timestamp as $t | .groups[]
  | [$t, .disk, .op, .count, .slow,
     (if .count > 0 then (100 * .slow / .count * 100 | round / 100) else 0 end)]
  | @tsv' "$log" | column -t
