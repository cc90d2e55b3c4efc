#!/usr/bin/env bash
# Smoke test of //examples:fashion_mnist on a tiny synthetic Fashion-MNIST:
# LeNet trains, prints a line per epoch, saves the best model, and a run
# stopped after epoch 1 and resumed from its state file ends bit-identical to
# an uninterrupted run. Bad flags are rejected with a message.
set -euo pipefail

bin="$TEST_SRCDIR/$TEST_WORKSPACE/examples/fashion_mnist"
source "$TEST_SRCDIR/$TEST_WORKSPACE/examples/fake_fashion_mnist.sh"
data="$TEST_TMPDIR/data"
fake_fashion_mnist "$data"
cd "$TEST_TMPDIR"
fail() { echo "FAIL: $*" >&2; exit 1; }

run() {
  BUILD_WORKING_DIRECTORY="$TEST_TMPDIR" "$bin" --data="$data" --batch_size=16 \
    --logdir=runs/smoke "$@" 2>progress.txt
}

out=$(run --epochs=2 --checkpoint=straight.safetensors --state=straight.state)
echo "$out"
[ "$(grep -c '^epoch [12]: train .* s (.* examples/s), test accuracy .*%$' <<<"$out")" = 2 ] ||
  fail "expected one accuracy line per epoch"
grep -q '^best test accuracy .*% (model saved in .*straight.safetensors)$' <<<"$out" ||
  fail "no best-accuracy line"
[ -s straight.safetensors ] || fail "no checkpoint under BUILD_WORKING_DIRECTORY"
[ "$(grep -c '^epoch 2 \[#*\] 7/7 loss .* acc .*%' progress.txt)" = 1 ] ||
  fail "expected one progress line for epoch 2 on a non-terminal stderr"

run --epochs=1 --checkpoint=resumed.safetensors --state=resumed.state >/dev/null
out=$(run --epochs=2 --checkpoint=resumed.safetensors --state=resumed.state \
  --resume=resumed.state)
grep -q '^resumed after epoch 1 ' <<<"$out" || fail "no resume line: $out"
grep -q '^epoch 1:' <<<"$out" && fail "a resumed run repeated epoch 1"
cmp straight.state resumed.state || fail "the resumed run's state differs from the straight run's"

if "$bin" --data="$data" --epochs=0 2>error.txt; then fail "--epochs=0 accepted"; fi
grep -q '^fashion_mnist: --epochs must be at least 1, got 0$' error.txt ||
  fail "epochs message: $(cat error.txt)"
if "$bin" --data="$data" --train_limit=-5 2>error.txt; then fail "--train_limit=-5 accepted"; fi
grep -q '^fashion_mnist: --train_limit must be 0 (every example) or more, got -5$' error.txt ||
  fail "train_limit message: $(cat error.txt)"
if "$bin" --data="$data" --model=vgg 2>error.txt; then fail "--model=vgg accepted"; fi
grep -q '^fashion_mnist: --model must be lenet or mlp, got "vgg"$' error.txt ||
  fail "model message: $(cat error.txt)"
if run --resume=straight.safetensors >/dev/null; then fail "a model file resumed"; fi
grep -q "no epoch in its metadata" progress.txt || fail "resume message: $(cat progress.txt)"
echo PASS
