# shellcheck shell=bash
# Assertions of the benchmark tests: each prints "ok: NAME" or "FAIL: NAME"
# with what differed, and counts failures in $failures for the test's
# exit status.  Sourced, not executed.

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

matches() { # NAME REGEX TEXT
  if [[ $3 =~ $2 ]]; then
    echo "ok: $1"
  else
    echo "FAIL: $1"
    echo "  expected to match: $2"
    echo "  in: $3"
    failures=$((failures + 1))
  fi
}
