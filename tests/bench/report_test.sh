#!/usr/bin/env bash
# The benchmark report's arithmetic and budget checks (tools/bench/lib/
# report.sh) on hand-written run records: ratios against the bracketing
# baselines, medians, and when a run short of the disk's completions fails
# the budget; and how measure.sh counts a configuration's events and fills
# in its command.  No kernel, no fio.  Usage: report_test.sh REPO_ROOT
set -euo pipefail

root=${1:?usage: report_test.sh REPO_ROOT}
# shellcheck source=SCRIPTDIR/../../tools/bench/lib/common.sh
source "$root/tools/bench/lib/common.sh"
# shellcheck source=SCRIPTDIR/../../tools/bench/lib/report.sh
source "$root/tools/bench/lib/report.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=SCRIPTDIR/checks.sh
source "$root/tests/bench/checks.sh"

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
check "two runs give no 95% interval for the median" "null null null" \
  "${jsonl[10]} ${jsonl[11]} ${jsonl[12]}"
check "events summed" "1998" "${jsonl[18]}"
check "completions summed" "2000" "${jsonl[19]}"
check "missed summed" "2" "${jsonl[21]}"
check "unfinished summed" "0" "${jsonl[22]}"

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

# The median's confidence interval from order statistics: with n runs it
# spans the (j+1)-th smallest to the (j+1)-th largest ratio, j the largest
# with P(Binomial(n, 1/2) <= j) <= 2.5%.  Baselines all 1000, so a run's
# ratio is its IOPS / 1000; the runs are recorded out of order.
ci_rows() { # N: n runs of "ci" with ratios 0.81 .. 0.80 + n/100, shuffled
  results=$work/ci$1.jsonl
  : >"$results"
  local r
  for ((r = 1; r <= $1 + 1; r++)); do run_record baseline "$r" 1000; done
  for ((r = 1; r <= $1; r++)); do
    run_record ci "$r" "$((800 + 10 * ((r * 7) % $1 + 1)))"
  done
  IFS=$'\x1f' read -r -a ci < <(aggregate_results '["ci"]' "$1")
  awk -v lo="${ci[10]}" -v hi="${ci[11]}" -v c="${ci[12]}" \
    'BEGIN { if (lo == "null") print "null"; else printf "%.2f %.2f %.4f\n", lo, hi, c }'
}
# n = 10: j = 1 (P(B <= 1) = 11/1024, P(B <= 2) = 56/1024): 2nd to 9th.
check "10 runs: 2nd smallest to 2nd largest, coverage 1 - 22/1024" \
  "0.82 0.89 0.9785" "$(ci_rows 10)"
# n = 6: j = 0 (P(B <= 0) = 1/64): the whole range, coverage 62/64.
check "6 runs: the whole range, coverage 62/64" "0.81 0.86 0.9688" "$(ci_rows 6)"
# n = 5: P(B <= 0) = 1/32 > 2.5%: no interval reaches 95%.
check "5 runs: no 95% interval" "null" "$(ci_rows 5)"
# n = 20: j = 5 (P(B <= 5) = 21700/2^20, P(B <= 6) = 60460/2^20): 6th to 15th.
check "20 runs: 6th to 15th" "0.86 0.95 0.9586" "$(ci_rows 20)"
results=$work/ci20.jsonl # ci_rows ran in a subshell
table=$(report_throughput '["ci"]' 20)
contains "the table shows the interval and its coverage" "| 0.860–0.950 (95.9%) |" \
  "$(grep '^| ci ' <<<"$table")"

# A ratio failure says whether the target lies above the median's interval
# or inside it (within the noise of the series).
check "target above the interval" \
  "FAIL: ratio < 0.95 (the median's 95% CI, 0.850–0.930, lies below it)" \
  "$(budget_verdict quiet 0.89 5 12 0 2000 0 0 0 0.850 0.930)"
check "target inside the interval" \
  "FAIL: ratio < 0.95 (within the noise: 0.95 is inside the median's 95% CI, 0.880–0.970)" \
  "$(budget_verdict quiet 0.93 5 12 0 2000 0 0 0 0.880 0.970)"
check "a met ratio needs no interval" "ok" \
  "$(budget_verdict quiet 0.96 5 12 0 2000 0 0 0 0.880 0.970)"

# The table: the missed column and the events cell say what was counted.
results=$work/results.jsonl
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

# Kernel side: one kstats record per configuration and warm-up round, the
# programs' bpf_stats before and after it.  Medians over the rounds.
kstats_record() { # CONFIG TRUTH A_NS A_CNT B_NS B_CNT [STATS_OK]
  record "$kstats" --arg config "$1" --argjson truth_run "$2" \
    --argjson before '[{"id":1,"name":"prog_a","ns":500,"cnt":5,"misses":0},{"id":2,"name":"prog_b","ns":0,"cnt":0,"misses":0}]' \
    --argjson after "[{\"id\":1,\"name\":\"prog_a\",\"ns\":$((500 + $3)),\"cnt\":$((5 + $4)),\"misses\":1},{\"id\":2,\"name\":\"prog_b\",\"ns\":$5,\"cnt\":$6,\"misses\":0}]" \
    --argjson stats_ok "${7:-true}"
}
kstats=$work/kstats.jsonl
# quiet, three rounds of 1000 I/Os: prog_a 100/150/400 ns per I/O (one run
# each), prog_b 50/60/70 ns per I/O; totals 150, 210, 470.
kstats_record quiet 1000 100000 1000 50000 1000
kstats_record quiet 1000 150000 1000 60000 1000
kstats_record quiet 1000 400000 1000 70000 1000
# floor, one round: prog_a only, 2 runs per I/O of 30 ns.
kstats_record floor 1000 60000 2000 0 0
table=$(report_kernel)
check "programs by ns per I/O, medians over the rounds" \
  "| quiet | prog_a | 1 | 150 | 150 | 3 |" "$(grep '^| quiet | prog_a ' <<<"$table")"
check "second program" "| quiet | prog_b | 1 | 60 | 60 | 0 |" \
  "$(grep '^| quiet | prog_b ' <<<"$table")"
check "total: median (min–max) of the rounds' totals" \
  "| quiet | **all** | 2 | | **210** (150–470) | 3 |" \
  "$(grep '^| quiet | \*\*all' <<<"$table")"
check "configurations in the order they ran" "quiet floor" \
  "$(sed -n '3p;$p' <<<"$table" | cut -d' ' -f2 | tr '\n' ' ' | sed 's/ $//')"
check "one round: no range, a program that did not run is left out" \
  "| floor | prog_a | 2 | 30 | 60 | 1 |
| floor | **all** | 2 | | **60** | 1 |" "$(grep '^| floor ' <<<"$table")"
# A program that ran in one round of three (merges, requeues) counts as 0
# in the others: its median is 0, not the one round's figure.
kstats_record rare 1000 100000 1000 0 0
kstats_record rare 1000 100000 1000 9000 3
kstats_record rare 1000 100000 1000 0 0
check "a program absent from a round counts as 0 there" \
  "| rare | prog_b | 0 | 3000 | 0 | 0 |" "$(report_kernel | grep '^| rare | prog_b ')"
kstats_record floor 1000 60000 2000 0 0 false
check "a round without bpf_stats is called out" \
  "| floor | (bpf_stats was turned off during a run by someone else) | | | | |" \
  "$(report_kernel | grep '^| floor ')"

# --- events counted from a configuration's output (measure.sh) -------------
# shellcheck source=SCRIPTDIR/../../tools/bench/lib/measure.sh
source "$root/tools/bench/lib/measure.sh"
cfg_count=(lines jsonl)
printf '1 a\n2 b\n\n3 c\n\n\n' >"$work/extra.out"
check "an extra's events: its non-empty lines (bpftrace ends with blank ones)" \
  3 "$(count_events 0 "$work/extra.out" "")"
: >"$work/empty.out"
check "an extra's empty output: 0 events" 0 "$(count_events 0 "$work/empty.out" "")"
printf '%s\n' '{"type":"header"}' '{"type":"event","a":1}' '{"type":"stats"}' \
  '{"type":"event","a":2}' >"$work/typed.jsonl"
check "JSON Lines with typed records: the event lines only" \
  2 "$(count_jsonl_events "$work/typed.jsonl")"
cfg_cmds=("{bench}/x.bt -o {out} {dev}") biosnoop=/b floor=/f devpath=/dev/loop9 devname=loop9
here="/opt/my bench"
check "placeholders filled in, {bench} quoted for bash" \
  '/opt/my\ bench/x.bt -o /w/o.out loop9' "$(expand_command 0 /w/o.out)"

if ((failures > 0)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
