#!/usr/bin/env bash
# Checks that Python's safetensors reads what torchlet writes and torchlet
# reads what Python writes (tools/safetensors_roundtrip.py).
#
# Makes (or reuses) a venv with safetensors and numpy from PyPI beside
# Debian's torch ($TORCHLET_SAFETENSORS_VENV, default
# ~/.cache/torchlet/safetensors-venv), builds //nn/serialize:safetensors_tool
# and exits non-zero on any mismatch.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TORCHLET_SAFETENSORS_VENV:-$HOME/.cache/torchlet/safetensors-venv}"

if ! "$venv/bin/python" -c "import safetensors, numpy, torch" 2>/dev/null; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install --quiet safetensors numpy
fi

cd "$root"
bazel build //nn/serialize:safetensors_tool
workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
"$venv/bin/python" tools/safetensors_roundtrip.py bazel-bin/nn/serialize/safetensors_tool "$workdir"
