#!/usr/bin/env bash
# Fuzzes the safetensors loader with libFuzzer for a bounded time.
#
#   tools/fuzz_safetensors.sh [SECONDS]      (default 120)
#
# Builds nn/serialize/safetensors_fuzzer.cc with clang and runs it over the
# checked-in seeds in nn/serialize/testdata/fuzz_corpus plus the inputs it
# found before (kept in $FUZZ_DIR/corpus); see tools/fuzz_loader.sh. Exits
# non-zero when the fuzzer finds a crash, a sanitizer report, a leak, an
# input slower than 10 s or an allocation over 64 MiB; the input is saved
# under $FUZZ_DIR.
set -euo pipefail

exec "$(dirname "${BASH_SOURCE[0]}")/fuzz_loader.sh" safetensors "${1:-120}" \
  nn/serialize/testdata/fuzz_corpus nn/serialize/testdata/safetensors.dict
