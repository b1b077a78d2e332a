#!/usr/bin/env bash
# `cmake --install` into a scratch prefix: the two programs where the README
# says, runnable, their man pages where man finds them, and the README, the
# docs it links, schema and examples beside them (the systemd unit names the
# installed README as its documentation).
# Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: install_test.sh BUILD_DIR}
prefix=$(mktemp -d /tmp/biosnoop-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT

cmake --install "$build" --prefix "$prefix" > /dev/null

failed=0
expect_file() {
  if [[ -f $prefix/$1 ]]; then echo "ok: $1"; else echo "FAIL: $1 not installed"; failed=1; fi
}
expect_file sbin/biosnoop
expect_file bin/bioreport
# The metrics endpoint's HTTP server, which sbin/biosnoop loads from
# ../lib/biosnoop/ when --metrics-listen is given.
expect_file lib/biosnoop/biosnoop-metrics.so
expect_file share/doc/biosnoop/README.md
# The README links bioreport's manual as docs/bioreport.md.
expect_file share/doc/biosnoop/docs/bioreport.md
# ... and running on Kubernetes as docs/kubernetes.md.
expect_file share/doc/biosnoop/docs/kubernetes.md
# ... and the kernels it runs on as docs/kernels.md.
expect_file share/doc/biosnoop/docs/kernels.md
# ... and the guide, the reference and the architecture.
for f in guide/README.md reference/README.md reference/guarantees.md architecture.md; do
  expect_file "share/doc/biosnoop/docs/$f"
done
expect_file share/doc/biosnoop/biosnoop.proto
expect_file share/doc/biosnoop/examples/biosnoop.service
expect_file share/doc/biosnoop/examples/biosnoop.logrotate
expect_file share/doc/biosnoop/examples/slow-io-report.sh
expect_file share/doc/biosnoop/examples/kubernetes/daemonset.yaml
expect_file share/doc/biosnoop/examples/kubernetes/Dockerfile
expect_file share/doc/biosnoop/examples/README.md
expect_file share/doc/biosnoop/examples/elasticsearch/biosnoop-index-template.json
for f in filebeat.yml vector.yaml config.alloy fluent-bit.conf fluent-bit-parsers.conf; do
  expect_file "share/doc/biosnoop/examples/shipping/$f"
done
# The man pages, gzipped where man looks under the prefix (biosnoop in
# section 8, bioreport in 1), found by name and rendered without a warning.
for entry in biosnoop:8 bioreport:1; do
  prog=${entry%:*} section=${entry#*:}
  rel=share/man/man$section/$prog.$section.gz
  expect_file "$rel"
  page=$prefix/$rel
  [[ -f $page ]] || continue
  if ! gzip -t "$page" 2>/dev/null; then
    echo "FAIL: $rel is not gzip"; failed=1
  fi
  if [[ $(MANPATH=$prefix/share/man man -w "$prog" 2>&1) != "$page" ]]; then
    echo "FAIL: MANPATH=$prefix/share/man man -w $prog does not find $page"
    failed=1
  fi
  warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  if out=$(MANWIDTH=80 man -l "$page" 2>/dev/null) && [[ -z $warnings &&
        $out == "${prog^^}($section)"* && $out == *--version* ]]; then
    echo "ok: man -l $rel renders without warnings"
  else
    echo "FAIL: man -l $rel: $warnings"; failed=1
  fi
done

unit=$prefix/share/doc/biosnoop/examples/biosnoop.service
doc=$(sed -n 's|^Documentation=file://||p' "$unit")
if [[ $doc == /usr/local/share/doc/biosnoop/README.md ]]; then
  echo "ok: the unit's Documentation= is the installed README's default path"
else
  echo "FAIL: the unit's Documentation= is '$doc'"; failed=1
fi
for prog in sbin/biosnoop bin/bioreport; do
  if out=$("$prefix/$prog" --version 2>&1); then
    echo "ok: $prog --version: $out"
  else
    echo "FAIL: $prog --version: $out"; failed=1
  fi
done
# The installed program finds its installed module: with an address that
# is not on this host, the bind is tried (by the module) and refused with
# its own message, which a missing module would have replaced.
# It refuses to start without privilege first, so this needs root (CI).
out=$("$prefix/sbin/biosnoop" --metrics-listen 192.0.2.1:9 --duration 1 2>&1) && rc=0 || rc=$?
if ((EUID != 0)) && [[ ${CI:-} != true ]]; then
  echo "skip: the installed module's load check needs root"
elif [[ $rc == 64 && $out == *"no such address on this host"* ]]; then
  echo "ok: the installed biosnoop loads its metrics module"
else
  echo "FAIL: installed biosnoop --metrics-listen: rc $rc: $out"; failed=1
fi
exit $failed
