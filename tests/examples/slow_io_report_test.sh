#!/usr/bin/env bash
# examples/slow-io-report.sh on a log of a busy host: slow I/O from 5000
# processes (a day of kworkers, cron jobs and clients).  Every section must
# be printed and the script exit 0; the top list has 10 rows.  No kernel:
# the lines are those biosnoop writes.  Usage: slow_io_report_test.sh REPO_ROOT
set -euo pipefail

root=${1:?usage: slow_io_report_test.sh REPO_ROOT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/slow.jsonl

awk 'BEGIN {
  print "{\"type\":\"header\",\"format_version\":1,\"host\":\"db7\",\"boot_id\":\"b\",\"start_time\":\"2026-11-21T05:00:00.000000000Z\",\"biosnoop_version\":\"0.1.0\",\"kernel_release\":\"6.18.0\",\"min_us\":10000,\"queued\":false,\"disk_filter\":\"\",\"pid_filter\":0,\"comm_filter\":\"\",\"op_filter\":\"\",\"ringbuf_kib\":2048}"
  for (i = 1; i <= 5000; i++) {
    error = i == 77 ? "\"error_code\":5,\"error\":\"EIO\"" : "\"error_code\":0,\"error\":null"
    printf "{\"type\":\"event\",\"timestamp\":\"2026-11-21T05:00:01.%09dZ\",\"host\":\"db7\",\"disk\":\"vda\",\"partition\":\"vda1\",\"dev\":\"254:0\",\"op\":\"read\",\"rwbs\":\"R\",\"sector\":%d,\"bytes\":4096,\"latency_us\":%d,\"device_us\":%d,\"queue_us\":1,\"queue_depth\":1,\"pid\":%d,\"tid\":%d,\"comm\":\"worker%d\",%s,\"seq\":%d}\n", i, i * 8, 10000 + i, 10000 + i, 1000 + i, 1000 + i, i, error, i
  }
  print "{\"type\":\"stuck\",\"timestamp\":\"2026-11-21T05:00:01.900000000Z\",\"host\":\"db7\",\"disk\":\"vda\",\"partition\":\"vda1\",\"dev\":\"254:0\",\"op\":\"write\",\"rwbs\":\"WS\",\"sector\":9000,\"bytes\":8192,\"inflight_us\":1500000,\"queue_us\":2,\"queue_depth\":3,\"pid\":42,\"tid\":42,\"comm\":\"postgres\"}"
  print "{\"type\":\"summary\",\"timestamp\":\"2026-11-21T05:00:02.000000000Z\",\"interval_s\":2.0,\"min_us\":10000,\"groups\":[{\"disk\":\"vda\",\"op\":\"read\",\"count\":20000,\"bytes\":81920000,\"slow\":5000,\"latency_us_log2\":[],\"size_log2\":[]}]}"
  print "{\"type\":\"stats\",\"timestamp\":\"2026-11-21T05:00:02.000000000Z\",\"elapsed_s\":2.0,\"completions\":20000,\"emitted\":5000,\"lost\":0,\"orphans\":0,\"below_threshold\":15000,\"filtered\":0,\"decode_errors\":0,\"expired\":0,\"written\":5000,\"dropped\":0,\"final\":true,\"missed\":0,\"unfinished\":0}"
}' > "$log"

failed=0
check() { # DESCRIPTION CONDITION...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failed=1; fi
}

status=0
out=$(bash "$root/examples/slow-io-report.sh" "$log" 2>&1) || status=$?
check "the script exits 0 (got $status)" test "$status" -eq 0
for section in "loss" "slow I/O per disk" "top processes" "the 10 slowest" \
               "failed I/Os" "requests stuck" "share of slow I/O"; do
  check "section '$section' printed" grep -q "^== $section" <<< "$out"
done
top=$(sed -n '/^== top processes/,/^== /p' <<< "$out" | grep -vc '^==' || true)
check "10 top processes (got $top)" test "$top" -eq 10
check "the failed read named" grep -q '"sector":616,"op":"read","error":"EIO"' <<< "$out"
check "the stuck write named, 1500 ms in flight" \
  grep -Eq '^2026-11-21T05:00:01.900000000Z +vda +vda1 +write +9000 +8192 +1500 +postgres +42$' <<< "$out"
check "the interval's share of slow reads (25%)" \
  grep -Eq '^2026-11-21T05:00:02.000000000Z +vda +read +20000 +5000 +25$' <<< "$out"
if ((failed)); then printf '%s\n' "$out" | head -40; fi
exit $failed
