#!/usr/bin/env bash
# gemm_turns against the naive peer: it loads the library, takes turns and
# reports one line per size with a positive ratio, and refuses a size of 0.
# (Which side is faster is not checked: under a loaded CI machine a turn of
# either may be stalled.)
set -euo pipefail
turns=$1 peer=$2
out=$("$turns" "$peer" --seconds 0.3 96 64)
echo "$out"
[ "$(echo "$out" | wc -l)" -eq 2 ] || { echo "expected one line per size" >&2; exit 1; }
for n in 96 64; do
  line=$(echo "$out" | grep "^BM_Gemm/$n: torchlet / naive loops, median of [0-9]* pairs of turns ")
  ratio=$(echo "$line" | sed -E 's/.*pairs of turns ([0-9.]+) .*/\1/')
  awk -v r="$ratio" 'BEGIN { exit !(r > 0 && r < 1000) }' || {
    echo "BM_Gemm/$n: torchlet over naive loops should be a positive ratio, got $ratio" >&2
    exit 1
  }
done
if err=$("$turns" "$peer" 0 2>&1); then
  echo "a size of 0 should be refused" >&2
  exit 1
fi
[ "$err" = "gemm_turns: a size must be positive, got 0" ] || {
  echo "unexpected message for a size of 0: $err" >&2
  exit 1
}
