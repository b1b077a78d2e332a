# shellcheck shell=bash
# Assertions of the benchmark tests: each prints "ok: NAME" or "FAIL: NAME"
# with what differed, and counts failures in $failures for the test's
# exit status.  Sourced, not executed.

failures=0

# outcome NAME FAILED WANTED-LABEL WANTED ACTUAL: what every assertion prints.
outcome() {
  if (($2 == 0)); then
    echo "ok: $1"
    return
  fi
  echo "FAIL: $1"
  echo "  $3: $4"
  echo "  actual: $5"
  failures=$((failures + 1))
}

check() { # NAME EXPECTED ACTUAL
  local failed=0
  [[ $2 == "$3" ]] || failed=1
  outcome "$1" "$failed" expected "$2" "$3"
}

contains() { # NAME NEEDLE HAYSTACK
  local failed=0
  [[ $3 == *"$2"* ]] || failed=1
  outcome "$1" "$failed" "expected to contain" "$2" "$3"
}

matches() { # NAME REGEX TEXT
  local failed=0
  [[ $3 =~ $2 ]] || failed=1
  outcome "$1" "$failed" "expected to match" "$2" "$3"
}
