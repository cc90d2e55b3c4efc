#!/usr/bin/env bash
# Builds //nn/tensorboard:write_demo_events, runs it, and reads what it wrote
# with tensorboard's own event reader (tools/check_tensorboard_events.py).
# Exits non-zero on any mismatch. The venv (system site packages, for numpy)
# is created on first use and `tensorboard` installed into it from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${TORCHLET_VENV:-$HOME/.cache/torchlet/venv}"
if ! "$venv/bin/python" -c "import tensorboard" 2>/dev/null; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q tensorboard
fi

bazel build //nn/tensorboard:write_demo_events
logdir="$(mktemp -d)"
trap 'rm -rf "$logdir"' EXIT
bazel-bin/nn/tensorboard/write_demo_events "$logdir/run" >/dev/null
"$venv/bin/python" tools/check_tensorboard_events.py "$logdir/run"
