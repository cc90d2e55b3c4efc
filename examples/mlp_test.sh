#!/usr/bin/env bash
# Smoke test of //examples:mlp on a tiny synthetic Fashion-MNIST: it trains,
# saves the best checkpoint, reloads it with the same accuracy, writes a
# TensorBoard event file, resolves relative paths against
# BUILD_WORKING_DIRECTORY, resumes from its training state exactly as if
# never stopped and rejects bad flags with a message.
set -euo pipefail

mlp="$TEST_SRCDIR/$TEST_WORKSPACE/examples/mlp"
data="$TEST_TMPDIR/data"

source "$TEST_SRCDIR/$TEST_WORKSPACE/examples/fake_fashion_mnist.sh"
fake_fashion_mnist "$data"

cd "$TEST_TMPDIR"
out=$(BUILD_WORKING_DIRECTORY="$TEST_TMPDIR" "$mlp" --data="$data" --epochs=2 --batch_size=16 \
  --checkpoint=best.safetensors --logdir=runs/smoke 2>progress.txt)
echo "$out"

fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(grep -c '^epoch [12]: train .* s, test accuracy .*%$' <<<"$out")" = 2 ] ||
  fail "expected one accuracy line per epoch"
best=$(sed -n 's/^best test accuracy \([0-9.]*\)%, reloaded from .*: \([0-9.]*\)%$/\1 \2/p' <<<"$out")
[ -n "$best" ] || fail "no reload line"
read -r saved reloaded <<<"$best"
[ "$saved" = "$reloaded" ] || fail "reloaded accuracy $reloaded differs from best $saved"
[ -s "$TEST_TMPDIR/best.safetensors" ] || fail "no checkpoint under BUILD_WORKING_DIRECTORY"
ls "$TEST_TMPDIR"/runs/smoke/events.out.tfevents.* >/dev/null || fail "no event file"
[ "$(grep -c '^epoch [12] \[#*\] 7/7 loss' progress.txt)" = 2 ] ||
  fail "expected one progress line per epoch on a non-terminal stderr"

if "$mlp" --data="$data" --epochs=0 2>error.txt; then fail "--epochs=0 accepted"; fi
grep -q '^mlp: --epochs must be at least 1, got 0$' error.txt || fail "epochs message: $(cat error.txt)"
if "$mlp" --data="$TEST_TMPDIR/missing" --logdir=runs/missing 2>error.txt; then
  fail "a missing data directory accepted"
fi
grep -q "^mlp: read_idx: .*missing" error.txt || fail "missing-data message: $(cat error.txt)"
# One epoch, then --resume for a second, must leave the very training state
# (model, optimizer, progress) that two epochs straight leave.
train() { "$mlp" --data="$data" --batch_size=16 --logdir=runs/resume "$@" 2>/dev/null; }
train --epochs=2 --checkpoint=straight_best.safetensors --state=straight.safetensors >straight.txt
train --epochs=1 --checkpoint=resumed_best.safetensors --state=resumed.safetensors >/dev/null
train --epochs=2 --checkpoint=resumed_best.safetensors --state=resumed.safetensors --resume \
  >resumed.txt
cat resumed.txt
cmp straight.safetensors resumed.safetensors || fail "the resumed run's state differs"
grep -q '^resuming from resumed.safetensors after epoch 1$' resumed.txt ||
  fail "no resuming line"
accuracy_line() { grep "^epoch 2:" "$1" | sed 's/train [0-9.]* s, //'; }
[ "$(accuracy_line straight.txt)" = "$(accuracy_line resumed.txt)" ] ||
  fail "epoch 2's accuracy differs after resuming"

if "$mlp" --data="$data" --epochs=2 --state=straight.safetensors --resume 2>error.txt; then
  fail "resuming a finished run accepted"
fi
grep -q '^mlp: --resume: .*straight.safetensors has already trained 2 epochs; --epochs is 2$' \
  error.txt || fail "finished-run message: $(cat error.txt)"
if "$mlp" --data="$data" --state=best.safetensors --resume 2>error.txt; then
  fail "a model checkpoint accepted as a training state"
fi
grep -q '^mlp: --resume: .*best.safetensors is not a training state (no epochs_done)$' \
  error.txt || fail "not-a-state message: $(cat error.txt)"
echo PASS
