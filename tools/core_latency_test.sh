#!/usr/bin/env bash
# core_latency prints both measurements between two CPUs and rejects bad
# arguments with its usage or a message naming the argument.
set -euo pipefail
bin=tools/core_latency
if [ "$(nproc)" -ge 2 ]; then
  out=$("$bin" 0 1 2000)
  grep -Eq '^cache line round trip between CPU 0 and CPU 1: [0-9]+ ns$' <<<"$out"
  grep -Eq '^256 KB written on CPU 0, then read on CPU 1: [0-9.]+ us$' <<<"$out"
fi
expect_error() {
  local want=$1
  shift
  if err=$("$bin" "$@" 2>&1); then
    echo "core_latency $* succeeded; expected: $want" >&2
    exit 1
  fi
  grep -Fq "$want" <<<"$err" || { echo "core_latency $*: got '$err', expected '$want'" >&2; exit 1; }
}
expect_error "usage: core_latency" 0
expect_error "FIRST_CPU must be a non-negative integer, got 'x'" x 1
expect_error "needs two different CPUs" 1 1
