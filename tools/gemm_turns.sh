#!/usr/bin/env bash
# torchlet's GEMM against a peer's in one process, in turns
# (tools/gemm_turns.cc): builds the peer library over PyTorch 2 (MKL; the
# torch that the anchors' run_pytorch2_bench.sh installs) or, with
# --libtorch, over Debian's libtorch 1.13 (OpenBLAS; run_libtorch_bench.sh's),
# builds gemm_turns, and runs it. A ratio below 1 means torchlet took less
# time. Which of the two is the faster peer depends on the CPU.
#
#   tools/gemm_turns.sh ANCHORS_DIR [--libtorch] [--seconds S] [N ...]
#
# ANCHORS_DIR holds run_pytorch2_bench.sh; its venv is made on first use
# (ANCHOR_BUILD_DIR, default ~/.cache/torchlet-anchors). Run it on a
# machine otherwise idle: `bazel shutdown` first.
set -euo pipefail
if [ $# -lt 1 ]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
anchors=$(cd "$1" && pwd)
shift
libtorch=false
if [ "${1:-}" = "--libtorch" ]; then
  libtorch=true
  shift
fi
cd "$(dirname "$0")/.."
out=${ANCHOR_BUILD_DIR:-$HOME/.cache/torchlet-anchors}
mkdir -p "$out"
# Builds peer library $1 from gemm_peer_torch.cc unless it is up to date;
# the rest are the compiler's flags for that torch.
build_peer() {
  local peer=$1
  shift
  if [ ! -e "$peer" ] || [ tools/gemm_peer_torch.cc -nt "$peer" ] ||
    [ tools/gemm_peer.h -nt "$peer" ]; then
    g++ -O2 -shared -fPIC tools/gemm_peer_torch.cc -I. "$@" -Wl,--no-as-needed -ltorch \
      -ltorch_cpu -lc10 -Wl,--as-needed -o "$peer"
  fi
}
if $libtorch; then
  peer=$out/gemm_peer_libtorch.so
  build_peer "$peer" -std=c++17 -I/usr/include/torch/csrc/api/include
else
  # Makes the venv if it is missing.
  bash "$anchors/run_pytorch2_bench.sh" --python -c 'import torch'
  venv=$out/pt2-venv
  site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  t=$site/torch
  peer=$out/gemm_peer_torch2.so
  build_peer "$peer" -std=c++20 -I"$t/include" -I"$t/include/torch/csrc/api/include" \
    -L"$t/lib" -Wl,-rpath,"$t/lib"
  # The libraries torch's CUDA build loads, as run_pytorch2_bench.sh finds them.
  nv=$site/nvidia
  libs=$nv/nccl/lib:${CUDA_PATH:-/usr/local/cuda}/lib64:$nv/cu13/lib:$nv/nvshmem/lib
  export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
bazel build -c opt //tools:gemm_turns >&2
exec bazel-bin/tools/gemm_turns "$peer" "$@"
