#!/usr/bin/env bash
# Checks that Python's safetensors reads what torchlet writes and torchlet
# reads what Python writes (tools/safetensors_roundtrip.py), and that LeNet-5
# checkpoints load both ways between torchlet and PyTorch with the same
# outputs (tools/lenet_interchange.py).
#
# Makes (or reuses) a venv with safetensors and numpy from PyPI beside
# Debian's torch ($TORCHLET_SAFETENSORS_VENV, default
# ~/.cache/torchlet/safetensors-venv), builds //nn/serialize:safetensors_tool
# and //examples:lenet_interchange, and exits non-zero on any mismatch.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TORCHLET_SAFETENSORS_VENV:-$HOME/.cache/torchlet/safetensors-venv}"

if ! "$venv/bin/python" -c "import safetensors, numpy, torch" 2>/dev/null; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install --quiet safetensors numpy
fi

cd "$root"
bazel build //nn/serialize:safetensors_tool //examples:lenet_interchange
workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
"$venv/bin/python" tools/safetensors_roundtrip.py bazel-bin/nn/serialize/safetensors_tool "$workdir"
"$venv/bin/python" tools/lenet_interchange.py bazel-bin/examples/lenet_interchange "$workdir"
