#!/usr/bin/env bash
# torchlet's GEMM against PyTorch 2's (MKL) in one process, in turns
# (tools/gemm_turns.cc): builds the peer library over the PyTorch 2 that
# the anchors' run_pytorch2_bench.sh installs, builds gemm_turns, and runs
# it. A ratio below 1 means torchlet took less time.
#
#   tools/gemm_turns.sh ANCHORS_DIR [--seconds S] [N ...]
#
# ANCHORS_DIR holds run_pytorch2_bench.sh; its venv is made on first use
# (ANCHOR_BUILD_DIR, default ~/.cache/torchlet-anchors). Run it on a
# machine otherwise idle: `bazel shutdown` first.
set -euo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,11p' "$0" >&2
  exit 2
fi
anchors=$(cd "$1" && pwd)
shift
cd "$(dirname "$0")/.."
out=${ANCHOR_BUILD_DIR:-$HOME/.cache/torchlet-anchors}
venv=$out/pt2-venv
# Makes the venv if it is missing.
bash "$anchors/run_pytorch2_bench.sh" --python -c 'import torch'
site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
t=$site/torch
peer=$out/gemm_peer_torch2.so
if [ ! -e "$peer" ] || [ tools/gemm_peer_torch.cc -nt "$peer" ] ||
  [ tools/gemm_peer.h -nt "$peer" ]; then
  g++ -O2 -std=c++20 -shared -fPIC tools/gemm_peer_torch.cc -I. -I"$t/include" \
    -I"$t/include/torch/csrc/api/include" -L"$t/lib" -Wl,-rpath,"$t/lib" \
    -Wl,--no-as-needed -ltorch -ltorch_cpu -lc10 -Wl,--as-needed -o "$peer"
fi
bazel build -c opt //tools:gemm_turns >&2
nv=$site/nvidia
# The libraries torch's CUDA build loads, as run_pytorch2_bench.sh finds them.
libs=$nv/nccl/lib:${CUDA_PATH:-/usr/local/cuda}/lib64:$nv/cu13/lib:$nv/nvshmem/lib
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
exec bazel-bin/tools/gemm_turns "$peer" "$@"
