# shellcheck shell=bash
# Markdown report from the harness's JSON records (results, kstats,
# exact_file, micro_json).  Sourced, not executed.

# Budget of issue #5 (ratios to the baseline, CPU s per million events, MiB).
budget_quiet_ratio=0.95
budget_jsonl_ratio=0.85
budget_jsonl_cpu=0.3
budget_rss_mib=16
budget_consumer_eps=3000000

# One line per configuration, fields separated by US (0x1f: not
# whitespace, so empty fields survive `read`), "null" for none (in CONFIG_JSON order, a JSON
# array of names) with the medians over rounds 1..$2 (round 0 is the
# warm-up; round $2 + 1 holds only the closing baseline run):
# name runs_ok runs skip iops_med iops_min iops_max ratio_med ratio_min
# ratio_max ratio_ci_lo ratio_ci_hi ratio_ci_coverage cpu_per_m user_per_m
# sys_per_m switches_per_k rss_mib events truth lost missed unfinished
# orphans notes
aggregate_results() {
  jq -rs --argjson names "$1" --argjson last "$2" '
    def median: sort | if length == 0 then null
      elif length % 2 == 1 then .[(length - 1) / 2]
      else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    def sum_or_null: if length == 0 or any(.[]; . == null) then null else add end;
    # A confidence interval for the median that assumes nothing about the
    # distribution: with n runs, the median lies between the j+1-th
    # smallest and the j+1-th largest with probability 1 - 2 P(B <= j),
    # B ~ Binomial(n, 1/2); j is the largest that keeps this >= 95%.  Fewer
    # than 6 runs cannot reach 95%: null.
    def choose($n; $k): reduce range(0; $k) as $i (1; . * ($n - $i) / ($i + 1));
    def tail($n; $j): ([range(0; $j + 1) | choose($n; .)] | add) / pow(2; $n);
    def median_ci: sort as $s | ($s | length) as $n
      | [range(0; ($n + 1) / 2 | floor) | select(tail($n; .) <= 0.025)] | max as $j
      | if $j == null then [null, null, null]
        else [$s[$j], $s[$n - 1 - $j], 1 - 2 * tail($n; $j)] end;
    . as $all
    | ($all | map(select(.config == "baseline" and .round >= 1 and .status == "ok"))
            | map({key: (.round | tostring), value: .iops}) | from_entries) as $base
    # The baseline a run is compared with: the mean of the baseline run of
    # its round and of the next round (after the last round, a closing
    # baseline run), which cancels the drift of the machine over the round.
    | def bracket: $base[. | tostring] as $b | $base[. + 1 | tostring] as $next
        | if $b == null then null elif $next == null then $b else ($b + $next) / 2 end;
    $names[] as $n
    | ($all | map(select(.config == $n and .round >= 1 and .round <= $last))) as $rs
    | ($rs | map(select(.status == "ok"))) as $ok
    | ($ok | map((.round | bracket) as $b | select($b != null) | .iops / $b)) as $ratio
    | ($ok | map(select(.user_s != null and .truth_run > 0))) as $measured
    | ($measured | map((.user_s + .sys_s) / (.truth_run / 1e6))) as $cpu
    | ($measured | map(.user_s / (.truth_run / 1e6))) as $user
    | ($measured | map(.sys_s / (.truth_run / 1e6))) as $sys
    | ($measured | map(.switches / (.truth_run / 1e3))) as $switches
    | [ $n, ($ok | length), ($rs | length),
        ($all | map(select(.config == $n and .status == "skipped")) | .[0].note // ""),
        ($ok | map(.iops) | median), ($ok | map(.iops) | min), ($ok | map(.iops) | max),
        ($ratio | median), ($ratio | min), ($ratio | max), ($ratio | median_ci[]),
        ($cpu | median), ($user | median), ($sys | median), ($switches | median),
        ($ok | map(.rss_kib | select(. != null)) | max | if . then . / 1024 else null end),
        ($ok | map(.events) | sum_or_null), ($ok | map(.truth_life) | add),
        ($ok | map(.lost) | sum_or_null), ($ok | map(.missed) | sum_or_null),
        ($ok | map(.unfinished) | sum_or_null), ($ok | map(.orphans) | sum_or_null),
        ($rs | map(.note | select(. != "")) | unique | join("; "))
      ]
    | map(if . == null or . == "" then "null" else tostring end)
    | join("\u001f")' "$results"
}

# Whether EVENTS plus what biosnoop reported as MISSED and UNFINISHED
# make up the disk's TRUTH: a shortfall that is counted, not silent.
shortfall_counted() {
  local events=$1 truth=$2 missed=$3 unfinished=$4
  [[ $events != null && $truth != null && $missed != null && $unfinished != null ]] &&
    ((events < truth && events + missed + unfinished == truth))
}

# Whether the median ratio RATIO meets TARGET, with what the confidence
# interval of the median (LO–HI) says about it: prints nothing when it is
# met, else the failure; a target inside the interval is called within the
# noise of the series, one above it is not.
ratio_check() {
  local ratio=$1 target=$2 lo=$3 hi=$4
  if awk -v r="$ratio" -v b="$target" 'BEGIN { exit !(r != "null" && r >= b) }'; then
    return
  fi
  local why=
  if [[ $lo != null && $hi != null ]]; then
    if awk -v h="$hi" -v b="$target" 'BEGIN { exit !(h < b) }'; then
      why=" (the median's 95% CI, $lo–$hi, lies below it)"
    else
      why=" (within the noise: $target is inside the median's 95% CI, $lo–$hi)"
    fi
  fi
  printf 'ratio < %s%s' "$target" "$why"
}

# Checks a row against the budget: "ok", "FAIL: ...", or "—".  A time-based
# run short only by completions biosnoop reported as missed or unfinished
# passes the events check (the size-based exactness pass is the strict one).
# CI_LO and CI_HI ("null" for none) only explain a ratio failure.
budget_verdict() {
  local name=$1 ratio=$2 cpu=$3 rss=$4 events=$5 truth=$6 lost=$7
  local missed=$8 unfinished=$9 ci_lo=${10:-null} ci_hi=${11:-null}
  local fails=() why
  case $name in
    quiet)
      why=$(ratio_check "$ratio" "$budget_quiet_ratio" "$ci_lo" "$ci_hi")
      [[ -z $why ]] || fails+=("$why")
      ;;
    jsonl)
      why=$(ratio_check "$ratio" "$budget_jsonl_ratio" "$ci_lo" "$ci_hi")
      [[ -z $why ]] || fails+=("$why")
      awk -v c="$cpu" -v b="$budget_jsonl_cpu" 'BEGIN { exit !(c != "null" && c <= b) }' ||
        fails+=("CPU > $budget_jsonl_cpu s/M")
      [[ $lost == 0 ]] || fails+=("lost events")
      [[ $events == "$truth" ]] || shortfall_counted "$events" "$truth" "$missed" "$unfinished" ||
        fails+=("events != completions")
      ;;
    *)
      printf '—'
      return
      ;;
  esac
  awk -v m="$rss" -v b="$budget_rss_mib" 'BEGIN { exit !(m != "null" && m <= b) }' ||
    fails+=("RSS > $budget_rss_mib MiB")
  if ((${#fails[@]} == 0)); then
    printf 'ok'
  else
    local text
    text=$(printf '%s; ' "${fails[@]}")
    printf 'FAIL: %s' "${text%; }"
  fi
}

# report_throughput CONFIG_JSON RUNS: the table of IOPS, ratios, CPU, RSS
# and events over rounds 1..RUNS.
report_throughput() {
  echo "| config | runs | IOPS median (min–max) | ratio to baseline, median (min–max) | median ratio's 95% CI | tracer CPU s / 1M events (user + sys) | tracer wakeups / 1k events | peak RSS MiB | events written / completions | lost | missed / unfinished | budget | notes |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  local name ok runs skip imed imin imax rmed rmin rmax cilo cihi cicov cpu user sys sw rss
  local ev truth lost missed unfin orph notes
  while IFS=$'\x1f' read -r name ok runs skip imed imin imax rmed rmin rmax cilo cihi cicov \
    cpu user sys sw rss ev truth lost missed unfin orph notes; do
    [[ $notes == null ]] && notes=
    if [[ $skip != null ]]; then
      echo "| $name | 0 | — | — | — | — | — | — | — | — | — | — | skipped: $(md_cell "$skip") |"
      continue
    fi
    local evcell='—'
    if [[ $ev != null ]]; then
      evcell=$(awk -v e="$ev" -v t="$truth" 'BEGIN {
        if (t > 0 && e > t) printf "%d / %d (%d more)", e, t, e - t
        else if (t > 0 && e == t) printf "%d / %d (all)", e, t
        else if (t > 0 && e > 0) printf "%d / %d (missing %.2g)", e, t, (t - e) / t
        else printf "%d / %d", e, t }')
      shortfall_counted "$ev" "$truth" "$missed" "$unfin" &&
        evcell="${evcell%)}, all reported as missed or unfinished)"
    fi
    local misscell='—'
    [[ $missed != null ]] && misscell="$missed / $(fmt "$unfin" '%s')"
    # The interval's ends as printed in the ratio column (3 decimals), so
    # the verdict quotes the same figures; too few runs for 95%: a dash.
    local cicell='— (< 6 runs)'
    if [[ $cilo != null ]]; then
      cilo=$(fmt "$cilo" '%.3f') cihi=$(fmt "$cihi" '%.3f')
      cicell="$cilo–$cihi ($(awk -v c="$cicov" 'BEGIN { printf "%.1f", c * 100 }')%)"
    fi
    local cpucell
    cpucell="$(fmt "$cpu" '%.3f')"
    [[ $cpu != null ]] && cpucell+=" ($(fmt "$user" '%.3f') + $(fmt "$sys" '%.3f'))"
    [[ $orph != null && $orph != 0 ]] && notes="${notes:+$notes; }orphans=$orph"
    printf '| %s | %s/%s | %s (%s–%s) | %s (%s–%s) | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
      "$name" "$ok" "$runs" \
      "$(fmt "$imed" '%.0f')" "$(fmt "$imin" '%.0f')" "$(fmt "$imax" '%.0f')" \
      "$(fmt "$rmed" '%.3f')" "$(fmt "$rmin" '%.3f')" "$(fmt "$rmax" '%.3f')" "$cicell" \
      "$cpucell" "$(fmt "$sw" '%.1f')" "$(fmt "$rss" '%.1f')" "$evcell" "$(fmt "$lost" '%s')" \
      "$misscell" \
      "$(budget_verdict "$name" "$rmed" "$cpu" "$rss" "$ev" "$truth" "$lost" "$missed" "$unfin" "$cilo" "$cihi")" \
      "$(md_cell "$notes")"
  done < <(aggregate_results "$1" "$2")
}

# Kernel-side cost per program from the warm-up rounds' bpf_stats deltas
# (one kstats record per configuration and warm-up round): per program the
# median over the rounds of runs per I/O, ns per run and ns per I/O; the
# configuration's total per I/O as the median (min–max) over the rounds.
report_kernel() {
  [[ -s $kstats ]] || { echo "(no tracer ran)"; return; }
  echo "| config | program | runs per I/O | ns per run | ns per I/O | recursion misses |"
  echo "|---|---|---|---|---|---|"
  jq -rs '
    def fix(d): . * pow(10; d) | round / pow(10; d);
    def median: sort | if length == 0 then null
      elif length % 2 == 1 then .[(length - 1) / 2]
      else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    # One warm-up run: its programs that ran, with their deltas.
    def deltas: . as $k
      | ($k.before | map({key: (.id | tostring), value: .}) | from_entries) as $b
      | [$k.after[] | . as $a | ($b[$a.id | tostring] // {ns: 0, cnt: 0}) as $p
          | {name: $a.name, ns: ($a.ns - $p.ns), cnt: ($a.cnt - $p.cnt),
             misses: ($a.misses - ($p.misses // 0)), truth: $k.truth_run}
          | select(.cnt > 0 or .misses > 0)];
    . as $all
    | reduce $all[].config as $c ([]; if any(.[]; . == $c) then . else . + [$c] end)
    | .[] as $config
    | [$all[] | select(.config == $config)] as $runs
    | ($runs | map(deltas)) as $d
    | if any($runs[]; .stats_ok | not) then
        "| \($config) | (bpf_stats was turned off during a run by someone else) | | | | |"
      elif ($d | flatten | length) == 0 then
        "| \($config) | (no program ran) | | | | |"
      else
        # A program that did not run in a round counts as 0 there.
        ([$d[][] | .name] | unique) as $names
        | ([$names[] as $n
            | ($d | map(map(select(.name == $n)) | .[0])) as $p
            | {name: $n,
               per_io: ($p | map(if . == null then 0 else .cnt / .truth end) | median),
               per_run: ($p | map(select(. != null and .cnt > 0) | .ns / .cnt) | median),
               ns_io: ($p | map(if . == null then 0 else .ns / .truth end) | median),
               misses: ($p | map(.misses // 0) | add)}]
          | sort_by(-.ns_io)[]
          | "| \($config) | \(.name) | \(.per_io | fix(2)) | \(if .per_run == null then "—" else .per_run | round end) | \(.ns_io | round) | \(.misses) |"),
        # The totals of each run from its deltas ($d, in the order of $runs),
        # per I/O of that run (a run in which no program ran counts 0).
        ($runs | to_entries | map(.value.truth_run as $t | $d[.key]
          | {ns: ((map(.ns) | add // 0) / $t), cnt: ((map(.cnt) | add // 0) / $t),
             misses: (map(.misses) | add // 0)})) as $tot
        | ($tot | map(.ns)) as $ns
        | "| \($config) | **all** | \($tot | map(.cnt) | median | fix(2)) | | **\($ns | median | round)**\(if ($ns | length) > 1 then " (\($ns | min | round)–\($ns | max | round))" else "" end) | \($tot | map(.misses) | add) |"
      end' "$kstats"
}

report_exactness() {
  [[ -s $exact_file ]] || { echo "(not run)"; return; }
  echo "| config | reads requested | fio reads | /sys completions | traced by the kernel | biosnoop completions | events in output | events from fio | written | lost | offsets missing / extra | traced, not in output | other counters | verdict |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  jq -r 'def v(x): if x == null then "—" else x | tostring end;
    "| \(.config) | \(v(.requested)) | \(v(.fio_ios)) | \(v(.truth)) | \(v(.traced)) | \(v(.completions)) | \(v(.events)) | \(v(.fio_events)) | \(v(.written)) | \(v(.lost)) | \(v(.missing)) / \(v(.extra)) | \(v(.unseen)) | \(.counters // "") | \(.verdict) |"' \
    "$exact_file"
}

report_micro() {
  [[ -s $micro_json ]] || { echo "(not run)"; return; }
  echo "| benchmark | ns per event (CPU) | events/s on one core | budget |"
  echo "|---|---|---|---|"
  jq -r --argjson floor "$budget_consumer_eps" '
    .benchmarks as $b
    | ($b | map(select(.aggregate_name == "median"))) as $med
    | (if ($med | length) > 0 then $med else $b | map(select(.run_type == "iteration")) end)
    | (map({key: .run_name, value: .items_per_second}) | from_entries) as $eps
    | .[]
    | (if .run_name == "BM_DecodeEnrichJsonl" then
         (if .items_per_second >= $floor then "ok (>= 3M/s)" else "FAIL (< 3M/s)" end)
       elif .run_name == "BM_DecodeEnrichProto" then
         (if .items_per_second > ($eps.BM_DecodeEnrichJsonl // 0) then "ok (> JSONL)" else "FAIL (<= JSONL)" end)
       else "—" end) as $verdict
    | "| \(.run_name) | \(.cpu_time * 10 | round / 10) | \(.items_per_second / 1e4 | round / 100)M | \($verdict) |"' \
    "$micro_json"
}
