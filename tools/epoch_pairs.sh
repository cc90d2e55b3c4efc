#!/usr/bin/env bash
# The LeNet example's epoch through DataParallel on two CPU devices against
# one device using both cores as intra-op threads, in alternating pairs of
# one-epoch runs, so that both halves of a pair see the same minute of a
# shared host. Prints each pair's seconds and ratio (two devices over one),
# then the median ratio and in how many pairs two devices were faster.
#
#   bazel build //examples:fashion_mnist
#   tools/epoch_pairs.sh PAIRS [BINARY] [EXTRA EXAMPLE FLAGS...]
#
# BINARY defaults to bazel-bin/examples/fashion_mnist; extra flags go to
# both runs (e.g. --train_limit=20000 for shorter epochs, --model=mlp).
# Checkpoints and logs go to a temporary directory, removed at the end.
set -euo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
pairs=$1
binary=${2:-bazel-bin/examples/fashion_mnist}
shift $(($# >= 2 ? 2 : 1))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# Seconds of the first epoch's training, as the example prints it.
epoch_seconds() {
  "$binary" --epochs=1 --devices="$1" --checkpoint="$dir/best.safetensors" \
    --state="$dir/state.safetensors" --logdir="$dir/logs" "${@:2}" >"$dir/out" 2>&1 || {
    echo "fashion_mnist --devices=$1 failed:" >&2
    tail -n 5 "$dir/out" >&2
    exit 1
  }
  awk '/^epoch 1: train/ { print $4 }' "$dir/out"
}

for i in $(seq 1 "$pairs"); do
  two=$(epoch_seconds cpu:0,cpu:1 "$@")
  one=$(epoch_seconds cpu:0 "$@")
  echo "$i $two $one"
done | python3 -c '
import statistics, sys
rows = [line.split() for line in sys.stdin]
if not rows:
    sys.exit(1)  # the first run failed, and said why
ratios = []
for i, two, one in rows:
    ratios.append(float(two) / float(one))
    print(f"pair {i}: two devices {two} s, one device {one} s -> {ratios[-1]:.3f}")
print(f"two devices / one device: median {statistics.median(ratios):.3f} "
      f"(min {min(ratios):.3f}, max {max(ratios):.3f}); "
      f"two devices faster in {sum(r < 1 for r in ratios)} of {len(ratios)} pairs")
'
