#!/usr/bin/env bash
# The Debian package on this machine: cpack -G DEB builds it from the
# build; it installs beside Debian's libbpf-tools (whose /usr/sbin/biosnoop
# it diverts, never shadows), its binaries stripped with their debug
# information in the -dbgsym package, its man pages found by man, its unit,
# logrotate config (a conffile) and completion in place; biosnoop from it
# runs for 2 s and writes its stream; purging it leaves nothing of it and
# gives libbpf-tools its biosnoop back.
# Usage: deb_test.sh BUILD_DIR   (root; changes /usr while it runs)
set -euo pipefail
build=${1:?usage: deb_test.sh BUILD_DIR}
skip() {
  if [[ ${CI:-} == true ]]; then echo "FAIL (CI: no skip): $*"; exit 1; fi
  echo "SKIP: $*"; exit 77
}
[[ $(id -u) -eq 0 ]] || skip "needs root (installs a package)"
if dpkg-query -W -f='${Status}' biosnoop 2>/dev/null | grep -q "ok installed"; then
  skip "a biosnoop package is installed already: not touching it"
fi
dpkg-query -W -f='${Status}' libbpf-tools 2>/dev/null | grep -q "ok installed" ||
  skip "libbpf-tools is not installed (tools/install-deps installs it)"

failed=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; failed=1; }
work=$(mktemp -d /tmp/biosnoop-deb-XXXXXX)
cleanup() {
  dpkg --purge biosnoop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

theirs_sum=$(md5sum /usr/sbin/biosnoop | cut -d' ' -f1)
(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; bad "cpack -G DEB"; exit 1; }
deb=$(ls "$work"/out/biosnoop_*.deb)
ddeb=$(ls "$work"/out/biosnoop-dbgsym_*.ddeb)
ok "cpack wrote $(basename "$deb") and $(basename "$ddeb")"

# Stripped, with the debug information beside it in the dbgsym package.
dpkg-deb -x "$deb" "$work/x"
dpkg-deb -x "$ddeb" "$work/dbg"
for bin in usr/sbin/biosnoop usr/bin/bioreport; do
  if readelf -S "$work/x/$bin" 2>/dev/null | grep -q '\.debug_info'; then
    bad "$bin is not stripped"
  else
    size=$(stat -c %s "$work/x/$bin")
    id=$(readelf -n "$work/x/$bin" | sed -n 's/.*Build ID: //p')
    debug=$work/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
    if [[ -f $debug ]] && readelf -S "$debug" 2>/dev/null | grep -q '\.debug_info'; then
      ok "$bin stripped ($((size / 1024)) KiB), its debug info in the dbgsym package"
    else
      bad "$bin: no debug info for build id $id in the dbgsym package"
    fi
  fi
done
if [[ $(dpkg-deb -f "$deb" Conffiles 2>/dev/null; dpkg-deb -I "$deb" conffiles) == *"/etc/logrotate.d/biosnoop"* ]]; then
  ok "/etc/logrotate.d/biosnoop is a conffile"
else
  bad "/etc/logrotate.d/biosnoop is not a conffile"
fi

dpkg -i "$deb" >"$work/install.log" 2>&1 || { cat "$work/install.log"; bad "dpkg -i"; exit 1; }
ok "dpkg -i beside libbpf-tools"
if [[ $(/usr/sbin/biosnoop --version) == "biosnoop "* ]]; then
  ok "/usr/sbin/biosnoop is this package's"
else
  bad "/usr/sbin/biosnoop --version: $(/usr/sbin/biosnoop --version 2>&1 | head -1)"
fi
if [[ $(md5sum /usr/sbin/biosnoop.libbpf-tools | cut -d' ' -f1) == "$theirs_sum" ]] &&
    dpkg-divert --list /usr/sbin/biosnoop | grep -q "biosnoop.libbpf-tools by biosnoop"; then
  ok "libbpf-tools' biosnoop diverted to /usr/sbin/biosnoop.libbpf-tools"
else
  bad "libbpf-tools' biosnoop not kept as /usr/sbin/biosnoop.libbpf-tools"
fi
for f in /usr/lib/systemd/system/biosnoop.service /etc/logrotate.d/biosnoop \
    /usr/share/bash-completion/completions/biosnoop \
    /usr/share/bash-completion/completions/bioreport \
    /usr/lib/biosnoop/biosnoop-metrics.so /usr/share/doc/biosnoop/README.md; do
  [[ -f $f ]] && ok "$f" || bad "$f not installed"
done
# postinst: the user biosnoop runs as once loaded (-Z), and its log
# directory, setgid adm.
if getent passwd biosnoop >/dev/null &&
    [[ $(stat -c %U:%G:%a /var/log/biosnoop) == biosnoop:adm:2750 ]]; then
  ok "user biosnoop and /var/log/biosnoop (biosnoop:adm 2750)"
else
  bad "postinst: user $(getent passwd biosnoop || echo missing), /var/log/biosnoop $(stat -c %U:%G:%a /var/log/biosnoop 2>&1)"
fi
if grep -q "^ExecStart=/usr/sbin/biosnoop " /usr/lib/systemd/system/biosnoop.service &&
    systemd-analyze verify /usr/lib/systemd/system/biosnoop.service >"$work/verify.log" 2>&1; then
  ok "the unit runs /usr/sbin/biosnoop and systemd-analyze verify accepts it"
else
  cat "$work/verify.log" 2>/dev/null || true
  bad "the unit: $(grep ExecStart /usr/lib/systemd/system/biosnoop.service)"
fi
if logrotate -d /etc/logrotate.d/biosnoop >"$work/logrotate.log" 2>&1; then
  ok "logrotate -d accepts /etc/logrotate.d/biosnoop"
else
  cat "$work/logrotate.log"; bad "logrotate -d /etc/logrotate.d/biosnoop"
fi
for prog in biosnoop bioreport; do
  page=$(man -w "$prog" 2>&1) || true
  if [[ $page == /usr/share/man/man*/"$prog".* ]]; then
    ok "man -w $prog: $page"
  else
    bad "man -w $prog: $page"
  fi
done

# Completion: options from the program's own --help, bioreport's reports.
complete_words() {
  bash -c 'source /usr/share/bash-completion/bash_completion
    source /usr/share/bash-completion/completions/biosnoop
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _biosnoop_bioreport "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
if [[ $(complete_words /usr/sbin/biosnoop --min) == *--min-us* ]]; then
  ok "completion: biosnoop --min -> --min-us"
else
  bad "completion: biosnoop --min gave: $(complete_words /usr/sbin/biosnoop --min | tr '\n' ' ')"
fi
if [[ $(complete_words /usr/bin/bioreport hea) == heatmap ]]; then
  ok "completion: bioreport hea -> heatmap"
else
  bad "completion: bioreport hea gave: $(complete_words /usr/bin/bioreport hea | tr '\n' ' ')"
fi

# The packaged biosnoop runs, writes its stream, and bioreport reads it.
if /usr/sbin/biosnoop -v --duration 2 -o "$work/run.jsonl" 2>"$work/run.err" &&
    grep -q "running as biosnoop (uid" "$work/run.err" &&
    head -1 "$work/run.jsonl" | grep -q '"type":"header"' &&
    /usr/bin/bioreport "$work/run.jsonl" >/dev/null 2>&1; then
  ok "biosnoop --duration 2 from the package: $(wc -l <"$work/run.jsonl") records, read by bioreport"
else
  cat "$work/run.err"; bad "biosnoop --duration 2 from the package"
fi

dpkg --purge biosnoop >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; bad "dpkg --purge"; }
if [[ $(md5sum /usr/sbin/biosnoop | cut -d' ' -f1) == "$theirs_sum" &&
      ! -e /usr/sbin/biosnoop.libbpf-tools ]] &&
    ! dpkg-divert --list /usr/sbin/biosnoop | grep -q .; then
  ok "purged: libbpf-tools' /usr/sbin/biosnoop is back, no diversion left"
else
  bad "after purge: /usr/sbin/biosnoop is not libbpf-tools' again"
fi
left=""
for f in /usr/bin/bioreport /usr/lib/biosnoop /usr/lib/systemd/system/biosnoop.service \
    /etc/logrotate.d/biosnoop /usr/share/bash-completion/completions/biosnoop \
    /usr/share/doc/biosnoop; do
  [[ -e $f ]] && left+=" $f"
done
[[ -z $left ]] && ok "purged: nothing of the package left" || bad "left after purge:$left"
exit $failed
