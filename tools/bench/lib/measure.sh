# shellcheck shell=bash
# One measured fio run per call, and the size-based exactness pass.
# Uses the harness's globals (set by tools/bench/run): devname, devpath,
# devsize, outdir, logdir, results, kstats, exact_file, runtime, biosnoop, floor,
# and the configuration arrays cfg_names, cfg_kinds, cfg_cmds, cfg_count,
# cfg_skip.  Sourced, not executed.

# The workload (--workload): randread, fio on the raw loop device; bufwrite,
# buffered 4 KiB random writes with an fsync every 64, to a file on an
# ext4 file system on it (the writeback, journal and dirtied pages that
# file attribution and the dirtied-page ledger work on).
fio_dir=read
fio_target=
fio_common=(--name=bench --rw=randread --bs=4k --direct=1 --ioengine=io_uring
  --iodepth=32 --numjobs=1 --output-format=json)
fio_workload() {
  case $1 in
    randread) ;;
    bufwrite)
      fio_dir=write
      fio_common=(--name=bench --rw=randwrite --bs=4k --direct=0
        --ioengine=psync --fsync=64 --size=512M --numjobs=1
        --output-format=json)
      ;;
    psync)
      fio_common=(--name=bench --rw=randread --bs=4k --direct=1
        --ioengine=psync --size=512M --numjobs=1 --output-format=json)
      ;;
    *) return 1 ;;
  esac
}

# fio_run JSON_OUT STDERR ARGS...: fio on the benchmark disk, bounded in
# time; kills it when the harness is interrupted (see cleanup in run).
fio_run() {
  local json=$1 err=$2 limit
  shift 2
  limit=$((runtime + 120))
  timeout --kill-after=10 "$limit" fio "${fio_common[@]}" \
    --filename="${fio_target:-$devpath}" \
    --output="$json" "$@" 2>"$err" &
  fio_pid=$!
  local rc=0
  wait "$fio_pid" || rc=$?
  fio_pid=
  return "$rc"
}

# The last non-empty line of FILE (why something failed).
last_line() { grep -av '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 | cut -c1-120; }

# KEY's value in a biosnoop summary line ("... written=12 lost=0 ...").
summary_value() { sed -n "s/.* $2=\([0-9.]*\).*/\1/p" <<<"$1"; }

# Events in a JSON Lines output: lines of "type":"event" when the stream
# has typed records (header, stats), else every line.
count_jsonl_events() {
  [[ -e $1 ]] || { echo 0; return; }
  if grep -q -m1 '"type":' "$1"; then
    grep -c '"type":"event"' "$1" || true
  else
    wc -l <"$1"
  fi
}

# The command of configuration I with its placeholders filled in.
expand_command() {
  local c=${cfg_cmds[$1]}
  c=${c//\{biosnoop\}/$biosnoop}
  c=${c//\{floor\}/$floor}
  c=${c//\{bench\}/$(printf %q "$here")}
  c=${c//\{devpath\}/$devpath}
  c=${c//\{dev\}/$devname}
  c=${c//\{out\}/$2}
  printf '%s' "$c"
}

# Starts configuration I's tracer (output OUT, logs under TAG, EXTRA
# appended to its command) and waits for it to attach.  Returns 1, with cfg_skip set, when it does not start;
# sets start_note when it runs but no BPF program was seen.
start_config() {
  local i=$1 out=$2 tag=$3 extra=${4:-} w=0
  start_note=
  tracer_start "$(expand_command "$i" "$out")$extra" "$logdir/$tag.stdout" \
    "$logdir/$tag.stderr"
  tracer_wait_attached 20 || w=$?
  if ((w == 1)); then
    tracer_stop
    cfg_skip[$i]="did not start (exit $tracer_rc): $(last_line "$logdir/$tag.stderr")"
    log "${cfg_names[$i]}: ${cfg_skip[$i]}"
    return 1
  fi
  ((w == 2)) && start_note="no BPF program seen within 20 s"
  return 0
}

# Events written by configuration I, from its output or its summary.
count_events() {
  local i=$1 out=$2 summary=$3
  case ${cfg_count[$i]} in
    jsonl) count_jsonl_events "$out" ;;
    # Blank lines are no events (bpftrace ends its output with some).
    lines) if [[ -e $out ]]; then grep -c . "$out" || true; fi ;;
    summary) summary_value "$summary" written ;;
  esac
}

# run_one I ROUND: one time-based fio run under configuration I.  Round 0
# is a warm-up round (one or more: --kernel-runs): bpf_stats is on while a
# tracer runs, and only the kernel-side figures of those rounds are
# reported.
run_one() {
  local i=$1 round=$2
  local name=${cfg_names[$1]} tag="${cfg_names[$1]}.r$2" out=""
  local status=ok note="" life0 life1 run0 run1 use0="" use1="" rss=""
  local snap0="[]" snap1="[]" stats_ok=1 summary="" fio_rc=0
  local -a ids=()
  [[ ${cfg_count[$i]} != none ]] && out="$outdir/$name.out"
  [[ -n $out ]] && rm -f "$out"

  life0=$(ios_completed "$devname")
  if [[ ${cfg_kinds[$i]} != baseline ]]; then
    start_config "$i" "${out:-$outdir/$name.out}" "$tag" || {
      record "$results" --arg config "$name" --argjson round "$round" \
        --arg status skipped --arg note "${cfg_skip[$i]}"
      return 0
    }
    note=$start_note
    if ((round == 0)); then
      mapfile -t ids < <(tracer_prog_ids)
      bpfstats_on
      snap0=$(bpf_prog_stats "${ids[@]}")
    fi
    use0=$(tracer_usage)
  fi

  run0=$(ios_completed "$devname")
  fio_run "$logdir/$tag.fio.json" "$logdir/$tag.fio.stderr" \
    --time_based --runtime="$runtime" || fio_rc=$?
  run1=$(ios_completed "$devname")

  if [[ ${cfg_kinds[$i]} != baseline ]]; then
    tracer_drain "$out"
    if tracer_alive; then
      use1=$(tracer_usage)
      rss=$(tracer_hwm_kib)
    else
      status=failed
      note="tracer exited during the run: $(last_line "$logdir/$tag.stderr")"
    fi
    if ((round == 0)); then
      snap1=$(bpf_prog_stats "${ids[@]}")
      bpfstats_is_on || stats_ok=0
      bpfstats_restore
    fi
    tracer_stop
    summary=$(grep -a '^biosnoop: completions=' "$logdir/$tag.stderr" | tail -n 1 || true)
  fi
  life1=$(ios_completed "$devname")

  local iops="" fio_ios=""
  if ((fio_rc == 0)) && [[ -s $logdir/$tag.fio.json ]]; then
    iops=$(jq '.jobs[0].'"$fio_dir"'.iops' "$logdir/$tag.fio.json")
    fio_ios=$(jq '.jobs[0].'"$fio_dir"'.total_ios' "$logdir/$tag.fio.json")
  else
    status=failed
    note="fio failed (exit $fio_rc): $(last_line "$logdir/$tag.fio.stderr")"
  fi
  local user="" sys="" switches=""
  if [[ -n $use0 && -n $use1 ]]; then
    read -r user sys switches < <(awk -v a="$use0" -v b="$use1" 'BEGIN {
      split(a, x, " "); split(b, y, " ")
      printf "%.3f %.3f %d\n", y[1] - x[1], y[2] - x[2], y[3] - x[3] }')
  fi
  local events=""
  [[ ${cfg_kinds[$i]} != baseline ]] && events=$(count_events "$i" "$out" "$summary")

  record "$results" --arg config "$name" --argjson round "$round" \
    --arg status "$status" --arg note "$note" \
    --argjson iops "$(num_or_null "$iops")" \
    --argjson fio_ios "$(num_or_null "$fio_ios")" \
    --argjson truth_run "$((run1 - run0))" \
    --argjson truth_life "$((life1 - life0))" \
    --argjson events "$(num_or_null "$events")" \
    --argjson completions "$(num_or_null "$(summary_value "$summary" completions)")" \
    --argjson written "$(num_or_null "$(summary_value "$summary" written)")" \
    --argjson lost "$(num_or_null "$(summary_value "$summary" lost)")" \
    --argjson missed "$(num_or_null "$(summary_value "$summary" missed)")" \
    --argjson unfinished "$(num_or_null "$(summary_value "$summary" unfinished)")" \
    --argjson orphans "$(num_or_null "$(summary_value "$summary" orphans)")" \
    --argjson user_s "$(num_or_null "$user")" \
    --argjson sys_s "$(num_or_null "$sys")" \
    --argjson switches "$(num_or_null "$switches")" \
    --argjson rss_kib "$(num_or_null "$rss")"

  if ((round == 0)) && [[ ${cfg_kinds[$i]} != baseline ]]; then
    record "$kstats" --arg config "$name" --argjson truth_run "$((run1 - run0))" \
      --argjson before "$snap0" --argjson after "$snap1" \
      --argjson stats_ok "$stats_ok"
  fi
  [[ -n $out ]] && rm -f "$out"
  log "$(printf 'round %d %-10s %s IOPS %s' "$round" "$name" \
    "$(fmt "$iops" '%.0f')" "${note:+($note)}")"
}

# exactness I N: a size-based run of N reads under configuration I (JSON
# Lines), checking that every completion is in the output exactly once:
# events == fio's count == /sys completions == biosnoop's completions ==
# lines written, nothing lost, and the multiset of offsets in the output
# equals the one fio logged (--write_iolog).  biosnoop runs with -v so
# that its other counters (key_collisions, requeues, ...) can be shown:
# N reads over the 2 GiB disk re-read blocks once N > 524288, and fio may
# then have two reads of one sector in flight at once.  biosnoop's "written" may
# count the stream's header and stats lines too: either count is accepted.
# The kernel's trace of the disk's completions (ktrace.sh) runs alongside:
# a completion missing from the output is then shown with the task it ran
# on, and a run whose every missing completion biosnoop reported as missed
# is told apart from one that lost events silently.
exactness() {
  local i=$1 n=$2 name=${cfg_names[$1]} tag="${cfg_names[$1]}.exact"
  local out="$outdir/exact.out" iolog="$outdir/exact.iolog" fio_rc=0
  rm -f "$out" "$iolog"
  local life0 life1
  life0=$(ios_completed "$devname")
  local verbose=""
  [[ ${cfg_kinds[$i]} == biosnoop ]] && verbose=" -v"
  if ! start_config "$i" "$out" "$tag" "$verbose"; then
    record "$exact_file" --arg config "$name" --argjson requested "$n" \
      --arg verdict "not run: ${cfg_skip[$i]}"
    return 0
  fi
  local -a ids
  mapfile -t ids < <(tracer_prog_ids)
  local misses0 misses1 ktrace_ok=0 ktrace_file="$outdir/exact.ktrace"
  misses0=$(bpf_prog_stats "${ids[@]}" | jq 'map(.misses) | add // 0')
  if ktrace_start "$devname" "$n"; then
    ktrace_ok=1
  else
    log "exactness: no kernel trace of the completions: $ktrace_why"
  fi
  fio_run "$logdir/$tag.fio.json" "$logdir/$tag.fio.stderr" \
    --size="$devsize" --io_size=$((n * 4096)) --runtime=$((runtime + 110)) \
    --write_iolog="$iolog" || fio_rc=$?
  tracer_drain "$out"
  if ((ktrace_ok)) && ! ktrace_stop "$ktrace_file"; then
    log "exactness: kernel trace incomplete: $ktrace_why"
    ktrace_ok=0
  fi
  misses1=$(bpf_prog_stats "${ids[@]}" | jq 'map(.misses) | add // 0')
  tracer_stop
  life1=$(ios_completed "$devname")

  local summary fio_ios events lines fio_events missing extra
  summary=$(grep -a '^biosnoop: completions=' "$logdir/$tag.stderr" | tail -n 1 || true)
  fio_ios=$(jq '.jobs[0].read.total_ios // empty' "$logdir/$tag.fio.json" 2>/dev/null || true)
  events=$(count_jsonl_events "$out")
  lines=$(wc -l <"$out" 2>/dev/null || echo 0)
  # Offsets (bytes) of fio's reads, from fio's log and from the events.
  # iolog v2 lines are "file read OFFSET LEN"; v3 puts a timestamp first.
  awk '{ for (k = 2; k < NF; k++) if ($k == "read") { print $(k + 1); next } }' \
    "$iolog" 2>/dev/null | LC_ALL=C sort >"$outdir/offsets.fio"
  grep -a '"comm":"fio"' "$out" 2>/dev/null | grep -ao '"sector":[0-9]*' |
    awk -F: '{ printf "%.0f\n", $2 * 512 }' | LC_ALL=C sort >"$outdir/offsets.events"
  fio_events=$(wc -l <"$outdir/offsets.events")
  missing=$(LC_ALL=C comm -23 "$outdir/offsets.fio" "$outdir/offsets.events" | wc -l)
  extra=$(LC_ALL=C comm -13 "$outdir/offsets.fio" "$outdir/offsets.events" | wc -l)

  # Counters beyond the summary's usual ones, when not zero.
  local counters
  counters=$(tr ' ' '\n' <<<"$summary" | grep -E '^[a-z_]+=[0-9]+$' |
    grep -vE '^(completions|emitted|written|lost|below_threshold|filtered|decode_errors|expired|dropped)=' |
    grep -v '=0$' | paste -sd' ' || true)
  ((misses1 > misses0)) && counters+="${counters:+ }bpf_recursion_misses=$((misses1 - misses0))"

  # Completions the kernel traced that are not in the output, and the
  # tasks they ran on.
  local traced='' unseen='' unseen_tasks=''
  if ((ktrace_ok)); then
    traced=$(wc -l <"$ktrace_file")
    grep -a '"type":"event"' "$out" 2>/dev/null | grep -ao '"sector":[0-9]*' |
      cut -d: -f2 >"$outdir/sectors.events"
    local report
    report=$(ktrace_unseen "$ktrace_file" "$outdir/sectors.events")
    unseen=$(head -n 1 <<<"$report")
    unseen_tasks=$(tail -n +2 <<<"$report" | paste -sd';' | sed 's/;/; /g')
  fi

  local completions written lost missed verdict=exact
  completions=$(summary_value "$summary" completions)
  written=$(summary_value "$summary" written)
  lost=$(summary_value "$summary" lost)
  missed=$(summary_value "$summary" missed)
  if ((fio_rc != 0)) || [[ -z $fio_ios ]]; then
    verdict="fio failed (exit $fio_rc): $(last_line "$logdir/$tag.fio.stderr")"
  elif ((fio_ios != n)); then
    verdict="fio did $fio_ios of $n reads (time cap)"
  elif [[ $events != "$fio_ios" || $fio_events != "$fio_ios" ||
    $((life1 - life0)) != "$fio_ios" || ${completions:-x} != "$fio_ios" ||
    (${written:-x} != "$events" && ${written:-x} != "$lines") ||
    ${lost:-x} != 0 || $missing != 0 ||
    $extra != 0 ]]; then
    verdict=MISMATCH
    # Short only by completions biosnoop reported as missed: a counted
    # loss, not a silent one.  With the kernel's trace, the missing ones
    # must also be exactly the traced completions absent from the output.
    if [[ -n $missed && $missed != 0 && ${completions:-x} == "$events" &&
      $fio_events == "$((fio_ios - missing))" &&
      $((events + missed)) == "$((life1 - life0))" && $missing == "$missed" &&
      (${written:-x} == "$events" || ${written:-x} == "$lines") &&
      ${lost:-x} == 0 && $extra == 0 ]] &&
      { [[ -z $traced ]] || [[ $traced == "$((life1 - life0))" && $unseen == "$missed" ]]; }; then
      verdict="counted: $missed missing, all reported as missed"
      [[ -n $unseen_tasks ]] && verdict+="; the kernel ran them on: $unseen_tasks"
    fi
  fi
  record "$exact_file" --arg config "$name" --argjson requested "$n" \
    --argjson fio_ios "$(num_or_null "$fio_ios")" \
    --argjson truth "$((life1 - life0))" \
    --argjson completions "$(num_or_null "$completions")" \
    --argjson written "$(num_or_null "$written")" \
    --argjson events "$events" --argjson fio_events "$fio_events" \
    --argjson lost "$(num_or_null "$lost")" \
    --argjson missing "$missing" --argjson extra "$extra" \
    --argjson traced "$(num_or_null "$traced")" \
    --argjson unseen "$(num_or_null "$unseen")" \
    --arg counters "$counters" --arg verdict "$verdict"
  log "exactness: $verdict"
  rm -f "$out" "$iolog" "$outdir/offsets.fio" "$outdir/offsets.events" \
    "$ktrace_file" "$outdir/sectors.events"
}
