#!/usr/bin/env bash
# Fuzzes the PyTorch checkpoint loader (load_pytorch) with libFuzzer for a bounded time.
#
#   tools/fuzz_pytorch_checkpoint.sh [SECONDS]      (default 120)
#
# Builds nn/serialize/pytorch_checkpoint_fuzzer.cc with clang against
# Debian's minizip (not instrumented: the sanitizers watch our code, and
# minizip reads only through our bounded callbacks), then runs it over the
# checked-in seeds in nn/serialize/testdata/pytorch_fuzz_corpus (whole .pt
# files, and bare data.pkl pickles that the entry point wraps in an archive)
# plus the inputs it found before (kept in $FUZZ_DIR/corpus); see
# tools/fuzz_loader.sh. Exits non-zero when the fuzzer finds a crash, a
# sanitizer report, a leak, an input slower than 10 s or an allocation over
# 64 MiB; the input is saved under $FUZZ_DIR.
set -euo pipefail

exec "$(dirname "${BASH_SOURCE[0]}")/fuzz_loader.sh" pytorch_checkpoint "${1:-120}" \
  nn/serialize/testdata/pytorch_fuzz_corpus nn/serialize/testdata/pytorch_checkpoint.dict \
  -lminizip -lz
