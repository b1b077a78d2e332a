#!/usr/bin/env bash
# What tools/run installs and builds: tools/install-deps --run lists the
# packages building and running need and none of the test suite's tools,
# all of them in the full list too; a build configured as tools/run does
# (-DBUILD_TESTING=OFF) has biosnoop, bioreport, the metrics module and
# the man pages, and no test, test tool or benchmark target.
# Usage: run_deps_test.sh SOURCE_DIR
set -euo pipefail
root=${1:?usage: run_deps_test.sh SOURCE_DIR}
failed=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; failed=1; }

run=$("$root/tools/install-deps" --run --list)
full=$("$root/tools/install-deps" --list)
for p in chromium prometheus nodejs npm qemu-system-x86 python3-kubernetes \
    libgtest-dev libfuse3-dev fio clang-tidy libbpf-tools; do
  if grep -qx "$p" <<<"$run"; then bad "--run installs $p"; fi
done
for p in $run; do
  grep -qx "$p" <<<"$full" || bad "$p is in --run but not in the full list"
done
for p in cmake clang bpftool libbpf-dev libcpp-httplib-dev; do
  grep -qx "$p" <<<"$run" || bad "--run lacks $p"
done
[[ $failed -eq 0 ]] && ok "install-deps --run: $(wc -l <<<"$run") packages of $(wc -l <<<"$full")"

build=$(mktemp -d /tmp/biosnoop-runconf-XXXXXX)
trap 'rm -rf "$build"' EXIT
if ! cmake -S "$root" -B "$build" -DBUILD_TESTING=OFF >"$build.log" 2>&1; then
  cat "$build.log"; rm -f "$build.log"; bad "configure with -DBUILD_TESTING=OFF"; exit 1
fi
rm -f "$build.log"
targets=$(cmake --build "$build" --target help | sed -n 's/^\.\.\. \([^ ]*\).*/\1/p')
for t in biosnoop bioreport biosnoop_metrics man_pages; do
  grep -qx "$t" <<<"$targets" || bad "no target $t without tests"
done
for t in slowdisk biosnoop_integration_tests bioreport_tests consumer_bench hook_floor; do
  if grep -qx "$t" <<<"$targets"; then bad "target $t built without tests"; fi
done
[[ $failed -eq 0 ]] && ok "-DBUILD_TESTING=OFF: biosnoop, bioreport, metrics module, man pages; no test target"
exit $failed
