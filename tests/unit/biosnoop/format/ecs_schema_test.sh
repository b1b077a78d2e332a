#!/usr/bin/env bash
# The ecs_schema test: biosnoop's ECS documents (the real encoder and
# sink, through ecs_sample) and examples/elasticsearch's index template,
# checked by ecs_check.js against the official ECS definitions, the npm
# package @elastic/ecs at the version biosnoop pins, fetched once into
# CACHE (under the build directory) with the machine's npm.
#
#   ecs_schema_test.sh CACHE VERSION ECS_SAMPLE TEMPLATE ECS_CHECK_JS
#
# Without node, npm or the registry: a skip (77), except under CI=true,
# where it fails.
set -euo pipefail
cache=$1 version=$2 sample=$3 template=$4 check=$5

unavailable() {
  if [[ ${CI:-} == true ]]; then
    echo "FAIL: $* (under CI=true this test must run)" >&2
    exit 1
  fi
  echo "SKIP: $*" >&2
  exit 77
}

command -v node >/dev/null || unavailable "no node (tools/install-deps installs nodejs)"
pkg=$cache/node_modules/@elastic/ecs
have=$(node -p "require('$pkg/package.json').version" 2>/dev/null || true)
if [[ $have != "$version" ]]; then
  command -v npm >/dev/null || unavailable "no npm (tools/install-deps installs it)"
  mkdir -p "$cache"
  # One install at a time into the cache (parallel ctest runs).
  if ! flock "$cache/.lock" npm install --prefix "$cache" --no-audit --no-fund \
      --loglevel=error "@elastic/ecs@$version" >&2; then
    unavailable "npm could not install @elastic/ecs@$version"
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$sample" "$tmp/sample.ecs.jsonl"
node "$check" --ecs "$pkg" --template "$template" --version "$version" \
  "$tmp/sample.ecs.jsonl"
