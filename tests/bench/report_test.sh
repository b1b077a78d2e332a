#!/usr/bin/env bash
# The benchmark report's arithmetic and budget checks (tools/bench/lib/
# report.sh) on hand-written run records: ratios against the bracketing
# baselines, medians, and when a run short of the disk's completions fails
# the budget.  No kernel, no fio.  Usage: report_test.sh REPO_ROOT
set -euo pipefail

root=${1:?usage: report_test.sh REPO_ROOT}
# shellcheck source=SCRIPTDIR/../../tools/bench/lib/common.sh
source "$root/tools/bench/lib/common.sh"
# shellcheck source=SCRIPTDIR/../../tools/bench/lib/report.sh
source "$root/tools/bench/lib/report.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

check() { # NAME EXPECTED ACTUAL
  if [[ $2 == "$3" ]]; then
    echo "ok: $1"
  else
    echo "FAIL: $1"
    echo "  expected: $2"
    echo "  actual:   $3"
    failures=$((failures + 1))
  fi
}

contains() { # NAME NEEDLE HAYSTACK
  if [[ $3 == *"$2"* ]]; then
    echo "ok: $1"
  else
    echo "FAIL: $1"
    echo "  expected to contain: $2"
    echo "  actual: $3"
    failures=$((failures + 1))
  fi
}

# One run of CONFIG in ROUND with IOPS and, for a tracer, its counts.
run_record() { # CONFIG ROUND IOPS [EVENTS TRUTH LOST MISSED UNFINISHED]
  local events=${4:-null} truth=${5:-0} lost=${6:-null} missed=${7:-null} unfinished=${8:-null}
  record "$results" --arg config "$1" --argjson round "$2" --arg status ok \
    --arg note "" --argjson iops "$3" --argjson fio_ios 1000 \
    --argjson truth_run "$truth" --argjson truth_life "$truth" \
    --argjson events "$events" --argjson completions "$events" \
    --argjson written "$events" --argjson lost "$lost" \
    --argjson missed "$missed" --argjson unfinished "$unfinished" \
    --argjson orphans 0 --argjson user_s 0.1 --argjson sys_s 0.1 \
    --argjson switches 10 --argjson rss_kib 12288
}

# Rounds 1 and 2 plus the closing baseline (round 3).  Baselines 100, 200,
# 300: a run in round 1 is compared with 150, in round 2 with 250.
results=$work/results.jsonl
for r in 1 2 3; do run_record baseline "$r" "$((r * 100))"; done
# jsonl: short by 2 of 2000 completions, both reported as missed.
run_record jsonl 1 120 999 1000 0 1 0
run_record jsonl 2 225 999 1000 0 1 0
# proto-like extra config named "short": short by 2, only 1 reported.
run_record short 1 150 999 1000 0 0 0
run_record short 2 250 999 1000 0 1 0

rows=$(aggregate_results '["baseline","jsonl","short"]' 2)
IFS=$'\x1f' read -r -a jsonl < <(sed -n 2p <<<"$rows")
# Fields: name ok runs skip iops_med iops_min iops_max ratio_med ...
check "ratio uses the mean of the bracketing baselines (120/150, 225/250)" \
  "0.85" "$(awk -v r="${jsonl[7]}" 'BEGIN { printf "%.2f", r }')"
check "ratio min" "0.8" "${jsonl[8]}"
check "ratio max" "0.9" "${jsonl[9]}"
check "events summed" "1998" "${jsonl[15]}"
check "completions summed" "2000" "${jsonl[16]}"
check "missed summed" "2" "${jsonl[18]}"
check "unfinished summed" "0" "${jsonl[19]}"

# Budget: a shortfall made up by missed + unfinished is counted, not a
# failure of the events check; one that is not made up fails it.
verdict=$(budget_verdict jsonl 0.90 0.2 12 1998 2000 0 2 0)
check "counted shortfall passes the events check" "ok" "$verdict"
verdict=$(budget_verdict jsonl 0.90 0.2 12 1998 2000 0 1 0)
check "uncounted shortfall fails" "FAIL: events != completions" "$verdict"
verdict=$(budget_verdict jsonl 0.90 0.2 12 1997 2000 0 2 1)
check "unfinished counts too" "ok" "$verdict"
verdict=$(budget_verdict jsonl 0.90 0.2 12 2001 2000 0 0 0)
check "more events than completions fails" "FAIL: events != completions" "$verdict"
verdict=$(budget_verdict jsonl 0.90 0.2 12 2000 2000 0 null null)
check "exact run without the counters passes" "ok" "$verdict"
verdict=$(budget_verdict jsonl 0.90 0.2 12 1998 2000 0 null null)
check "shortfall without the counters fails" "FAIL: events != completions" "$verdict"
verdict=$(budget_verdict jsonl 0.80 0.4 12 2000 2000 3 0 0)
check "ratio, CPU and lost each fail" \
  "FAIL: ratio < 0.85; CPU > 0.3 s/M; lost events" "$verdict"
check "quiet checks only its ratio and RSS" "ok" \
  "$(budget_verdict quiet 0.96 5 12 0 2000 0 0 0)"
check "other configurations have no budget" "—" \
  "$(budget_verdict proto 0.5 5 99 0 2000 9 0 0)"

# The table: the missed column and the events cell say what was counted.
table=$(report_throughput '["baseline","jsonl","short"]' 2)
jsonl_row=$(grep '^| jsonl ' <<<"$table")
contains "jsonl row shows missed / unfinished" "| 2 / 0 |" "$jsonl_row"
contains "jsonl row says the shortfall was reported" \
  "1998 / 2000 (missing 0.001, all reported as missed or unfinished)" "$jsonl_row"
short_row=$(grep '^| short ' <<<"$table")
contains "an unexplained shortfall is not called reported" \
  "1998 / 2000 (missing 0.001) |" "$short_row"
header_cols=$(sed -n 1p <<<"$table" | tr -cd '|' | wc -c)
row_cols=$(tr -cd '|' <<<"$jsonl_row" | wc -c)
check "rows have the header's columns" "$header_cols" "$row_cols"

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
