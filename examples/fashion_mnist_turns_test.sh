#!/usr/bin/env bash
# Smoke test of //examples:fashion_mnist_turns on a tiny synthetic
# Fashion-MNIST: both ways train and report their step, its phases and the
# ratio; bad flags, and too few steps for both ways, are rejected with a
# message.
set -euo pipefail

bin="$TEST_SRCDIR/$TEST_WORKSPACE/examples/fashion_mnist_turns"
source "$TEST_SRCDIR/$TEST_WORKSPACE/examples/fake_fashion_mnist.sh"
data="$TEST_TMPDIR/data"
fake_fashion_mnist "$data"
fail() { echo "FAIL: $*" >&2; exit 1; }

# 100 examples in batches of 4: 25 steps, turns of 4, 2 of each timed.
out=$("$bin" --data="$data" --batch_size=4 --turn=4 --epochs=2)
echo "$out"
grep -q '^DataParallel on cpu:0,cpu:1: [0-9.]* ms a step ([0-9.]* s an epoch), loss [0-9.]*, ' \
  <<<"$out" || fail "no DataParallel line"
grep -q '^one device, 2 intra-op threads: [0-9.]* ms a step ' <<<"$out" ||
  fail "no one-device line"
[ "$(grep -c '^  forward [0-9]* us, backward [0-9]* us, optimizer [0-9]* us, batch and metrics' \
  <<<"$out")" = 2 ] || fail "expected the phases of both ways"
# 50 steps: DataParallel takes steps 0-3, 8-11, ..., 48-49 (26), timing 2 of
# each full turn of 4 and none of the last 2; one device 24, timing 12.
grep -q '^DataParallel over one device: [0-9.]* (12 and 12 timed steps)$' <<<"$out" ||
  fail "wrong timed step counts"

if "$bin" --data="$data" --turn=2 2>error.txt; then fail "--turn=2 accepted"; fi
turn_message='--turn must be at least 3 (the first two steps are not timed), got 2'
grep -q "^fashion_mnist_turns: $turn_message\$" error.txt || fail "turn message: $(cat error.txt)"
if "$bin" --data="$data" --epochs=0 2>error.txt; then fail "--epochs=0 accepted"; fi
grep -q '^fashion_mnist_turns: --epochs must be at least 1, got 0$' error.txt ||
  fail "epochs message: $(cat error.txt)"
if "$bin" --data="$data" --batch_size=4 --turn=30 2>error.txt; then fail "one way untimed"; fi
grep -q '^fashion_mnist_turns: too few steps (25) for both ways to time one; lower --turn$' \
  error.txt || fail "too-few-steps message: $(cat error.txt)"
echo PASS
